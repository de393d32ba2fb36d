// Package kubernetes_test checks the Kubernetes manifests: every object the
// overlays render decodes strictly into the Kubernetes API's types (an
// unknown or misspelt field fails), and the objects say what the
// deployment promises (docs/deploy.md).
package kubernetes_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/yaml"
)

var overlays = []string{"small", "existing-etcd"}

// decoded is a rendered manifest decoded strictly into its API type.
type decoded struct {
	kind, name string
	obj        any
}

// strictDecode decodes one object into the type of its kind, refusing
// unknown fields, kinds and API versions.
func strictDecode(doc []byte) (decoded, error) {
	var meta struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if err := yaml.Unmarshal(doc, &meta); err != nil {
		return decoded{}, err
	}
	types := map[string]struct {
		apiVersion string
		obj        func() any
	}{
		"Namespace":             {"v1", func() any { return &corev1.Namespace{} }},
		"ConfigMap":             {"v1", func() any { return &corev1.ConfigMap{} }},
		"Secret":                {"v1", func() any { return &corev1.Secret{} }},
		"Service":               {"v1", func() any { return &corev1.Service{} }},
		"PersistentVolumeClaim": {"v1", func() any { return &corev1.PersistentVolumeClaim{} }},
		"Deployment":            {"apps/v1", func() any { return &appsv1.Deployment{} }},
		"StatefulSet":           {"apps/v1", func() any { return &appsv1.StatefulSet{} }},
		"PodDisruptionBudget":   {"policy/v1", func() any { return &policyv1.PodDisruptionBudget{} }},
		"NetworkPolicy":         {"networking.k8s.io/v1", func() any { return &networkingv1.NetworkPolicy{} }},
	}
	ty, ok := types[meta.Kind]
	if !ok {
		return decoded{}, fmt.Errorf("%s %q: a kind this test does not know", meta.Kind, meta.Metadata.Name)
	}
	if meta.APIVersion != ty.apiVersion {
		return decoded{}, fmt.Errorf("%s %q: apiVersion %q, want %q", meta.Kind, meta.Metadata.Name, meta.APIVersion, ty.apiVersion)
	}
	obj := ty.obj()
	if err := yaml.UnmarshalStrict(doc, obj); err != nil {
		return decoded{}, fmt.Errorf("%s %q: %w", meta.Kind, meta.Metadata.Name, err)
	}
	return decoded{meta.Kind, meta.Metadata.Name, obj}, nil
}

// tree copies deploy/kubernetes into a temporary directory with a stand-in
// token and TLS files, which the secret generator reads.
func tree(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, path), 0o755)
		}
		if strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, path), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"token", "ca.pem", "cert.pem", "key.pem"} {
		if err := os.WriteFile(filepath.Join(dst, "base/secrets", f), []byte("test "+f+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// kustomizeOK reports whether kubectl is here with a kustomize that reads
// these kustomizations (v4 or later: resources naming directories,
// patches).
func kustomizeOK() bool {
	out, err := exec.Command("kubectl", "version", "--client").CombinedOutput()
	if err != nil {
		return false
	}
	m := regexp.MustCompile(`Kustomize Version: v(\d+)`).FindSubmatch(out)
	if m == nil {
		return false
	}
	major, _ := strconv.Atoi(string(m[1]))
	return major >= 4
}

// render builds an overlay: with kubectl kustomize where it is, else with
// this test's own loader (loader_test.go). It returns the objects' YAML.
func render(t *testing.T, root, overlay string) (docs [][]byte, how string) {
	t.Helper()
	dir := filepath.Join(root, "overlays", overlay)
	if kustomizeOK() {
		out, err := exec.Command("kubectl", "kustomize", dir).Output()
		if err != nil {
			t.Fatalf("kubectl kustomize %s: %v", overlay, err)
		}
		return splitDocs(out), "kubectl kustomize"
	}
	objs, err := load(dir)
	if err != nil {
		t.Fatalf("rendering %s: %v", overlay, err)
	}
	for _, o := range objs {
		b, err := yaml.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, b)
	}
	return docs, "the test's loader"
}

// TestManifestsDecodeStrictly renders each overlay and decodes every object
// strictly, then checks what the deployment promises.
func TestManifestsDecodeStrictly(t *testing.T) {
	root := tree(t)
	for _, overlay := range overlays {
		t.Run(overlay, func(t *testing.T) {
			docs, how := render(t, root, overlay)
			objs := map[string]any{}
			var kinds []string
			for _, d := range docs {
				o, err := strictDecode(d)
				if err != nil {
					t.Fatal(err)
				}
				objs[o.kind+"/"+o.name] = o.obj
				kinds = append(kinds, o.kind+"/"+o.name)
			}
			slices.Sort(kinds)
			t.Logf("%s (%s): %d objects decode strictly: %s", overlay, how, len(docs), strings.Join(kinds, " "))
			checkDeployment(t, overlay, objs)
		})
	}
}

func get[T any](t *testing.T, objs map[string]any, key string) T {
	t.Helper()
	o, ok := objs[key].(T)
	if !ok {
		t.Fatalf("no %s in the rendered manifests", key)
	}
	return o
}

func checkDeployment(t *testing.T, overlay string, objs map[string]any) {
	for key, o := range objs {
		if ns, ok := o.(interface{ GetNamespace() string }); ok && !strings.HasPrefix(key, "Namespace/") && ns.GetNamespace() != "phobos" {
			t.Errorf("%s: namespace %q, want phobos", key, ns.GetNamespace())
		}
	}
	sched := get[*appsv1.StatefulSet](t, objs, "StatefulSet/phobos-scheduler")
	if sched.Spec.Replicas == nil || *sched.Spec.Replicas != 3 {
		t.Errorf("schedulers: replicas %v, want 3", sched.Spec.Replicas)
	}
	sc := sched.Spec.Template.Spec.Containers[0]
	if !slices.Contains(sc.Args, "--id=$(POD_NAME)") || envField(sc, "POD_NAME") != "metadata.name" {
		t.Errorf("schedulers are not named by their pods: args %q", sc.Args)
	}
	pdb := get[*policyv1.PodDisruptionBudget](t, objs, "PodDisruptionBudget/phobos-scheduler")
	if !selects(pdb.Spec.Selector.MatchLabels, sched.Spec.Template.Labels) {
		t.Errorf("the schedulers' PodDisruptionBudget selects %v, not the schedulers (%v)", pdb.Spec.Selector.MatchLabels, sched.Spec.Template.Labels)
	}

	worker := get[*appsv1.Deployment](t, objs, "Deployment/phobos-worker")
	wc := worker.Spec.Template.Spec.Containers[0]
	var memRef *corev1.ResourceFieldSelector
	for _, e := range wc.Env {
		if e.Name == "MEMORY_LIMIT" && e.ValueFrom != nil {
			memRef = e.ValueFrom.ResourceFieldRef
		}
	}
	if memRef == nil || memRef.Resource != "limits.memory" || memRef.ContainerName != wc.Name {
		t.Errorf("workers: MEMORY_LIMIT is not the container's memory limit: %+v", memRef)
	}
	if wc.Resources.Limits.Memory().IsZero() {
		t.Error("workers have no memory limit")
	}
	for flag, vol := range map[string]string{"--spill-dir=": "spill", "--data-root=": "data"} {
		dir := argValue(wc.Args, flag)
		if m := mountAt(wc, dir); m == "" || m != vol {
			t.Errorf("workers: %s%s is not the %s volume (mounted: %q)", flag, dir, vol, m)
		}
	}
	if overlay == "small" {
		if got := wc.Resources.Limits.Memory().String(); got != "4Gi" {
			t.Errorf("small: worker memory limit %s, want the overlay's 4Gi", got)
		}
		if worker.Spec.Replicas == nil || *worker.Spec.Replicas != 2 {
			t.Errorf("small: workers %v, want 2", worker.Spec.Replicas)
		}
	}
	checkLauncher(t, wc)

	web := get[*appsv1.Deployment](t, objs, "Deployment/phobos-web")
	svc := get[*corev1.Service](t, objs, "Service/phobos-web")
	if !selects(svc.Spec.Selector, web.Spec.Template.Labels) {
		t.Errorf("Service phobos-web selects %v, not the web pods (%v)", svc.Spec.Selector, web.Spec.Template.Labels)
	}

	// Every role: token and TLS files from Secrets that are there, probes.
	for name, spec := range map[string]corev1.PodSpec{"scheduler": sched.Spec.Template.Spec, "worker": worker.Spec.Template.Spec, "web": web.Spec.Template.Spec} {
		c := spec.Containers[0]
		args := c.Args
		for _, flag := range []string{"--token-file=", "--tls-cert=", "--tls-key=", "--tls-ca="} {
			file := argValue(args, flag)
			vol := mountAt(c, filepath.Dir(file))
			secret := ""
			for _, v := range spec.Volumes {
				if v.Name == vol && v.Secret != nil {
					secret = v.Secret.SecretName
				}
			}
			s, ok := objs["Secret/"+secret].(*corev1.Secret)
			if !ok {
				t.Errorf("%s: %s%s is not in a Secret of the manifests", name, flag, file)
				continue
			}
			if _, ok := s.Data[filepath.Base(file)]; !ok {
				t.Errorf("%s: Secret %s has no key %s", name, secret, filepath.Base(file))
			}
		}
		if c.LivenessProbe == nil || c.LivenessProbe.HTTPGet == nil || c.LivenessProbe.HTTPGet.Path != "/healthz" ||
			c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet == nil || c.ReadinessProbe.HTTPGet.Path != "/readyz" {
			t.Errorf("%s: probes are not /healthz and /readyz", name)
		}
		if sc := spec.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
			t.Errorf("%s: may run as root", name)
		}
	}

	cm := get[*corev1.ConfigMap](t, objs, "ConfigMap/phobos-config")
	_, ownEtcd := objs["StatefulSet/phobos-etcd"]
	switch overlay {
	case "small":
		etcd := get[*appsv1.StatefulSet](t, objs, "StatefulSet/phobos-etcd")
		if etcd.Spec.Replicas == nil || *etcd.Spec.Replicas != 3 {
			t.Errorf("etcd: %v members, want 3", etcd.Spec.Replicas)
		}
		for i := range 3 {
			if u := fmt.Sprintf("http://phobos-etcd-%d.phobos-etcd.phobos.svc.cluster.local:2379", i); !strings.Contains(cm.Data["ETCD_ENDPOINTS"], u) {
				t.Errorf("ETCD_ENDPOINTS %q lacks member %d (%s)", cm.Data["ETCD_ENDPOINTS"], i, u)
			}
		}
	case "existing-etcd":
		if ownEtcd {
			t.Error("existing-etcd runs an etcd of its own")
		}
		if strings.Contains(cm.Data["ETCD_ENDPOINTS"], "phobos-etcd") {
			t.Errorf("existing-etcd: ETCD_ENDPOINTS %q still names the in-cluster etcd", cm.Data["ETCD_ENDPOINTS"])
		}
	}
}

// checkLauncher runs the worker's Python launcher with the image's
// interpreter (here Debian's), its exec replaced by a print: the
// advertised name is the pod's dashed IP under the headless Service, the
// budget half the limit, and the container's arguments follow.
func checkLauncher(t *testing.T, c corev1.Container) {
	t.Helper()
	if len(c.Command) != 3 || c.Command[0] != "/usr/bin/python3" || c.Command[1] != "-c" {
		t.Errorf("worker command %q: want /usr/bin/python3 -c LAUNCHER", c.Command)
		return
	}
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Logf("no /usr/bin/python3 to run the worker's launcher with: %v", err)
		return
	}
	code := "import os, json\nos.execv = lambda path, argv: print(json.dumps([path] + argv))\nexec(compile(" + strconv.Quote(c.Command[2]) + ", 'launcher', 'exec'))"
	cmd := exec.Command("/usr/bin/python3", append([]string{"-c", code}, "--listen=0.0.0.0:7101", "--spill-dir=/s")...)
	cmd.Env = []string{"POD_IP=10.244.1.17", "POD_NAMESPACE=phobos", "CLUSTER_DOMAIN=cluster.local", "MEMORY_LIMIT=4294967296"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("worker launcher: %v\n%s", err, out)
	}
	want := `["/usr/local/bin/phobos", "phobos", "worker", "--advertise=10-244-1-17.phobos-worker.phobos.svc.cluster.local", "--memory=2147483648", "--listen=0.0.0.0:7101", "--spill-dir=/s"]`
	if got := string(bytes.TrimSpace(out)); got != want {
		t.Errorf("worker launcher execs\n%s\nwant\n%s", got, want)
	}
}

// TestStrictDecodeRefusesUnknownFields: a misspelt field, a field at the
// wrong level and an unknown kind fail, as a typo in a manifest must.
func TestStrictDecodeRefusesUnknownFields(t *testing.T) {
	good := []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {a: b}\n  template:\n    metadata:\n      labels: {a: b}\n    spec:\n      containers:\n        - name: c\n          image: i\n")
	if _, err := strictDecode(good); err != nil {
		t.Fatalf("a valid Deployment: %v", err)
	}
	for name, doc := range map[string]string{
		"misspelt":        strings.Replace(string(good), "replicas: 1", "replica: 1", 1),
		"wrong level":     strings.Replace(string(good), "          image: i\n", "          image: i\n          memory: 1Gi\n", 1),
		"unknown kind":    strings.Replace(string(good), "kind: Deployment", "kind: Deploymint", 1),
		"wrong version":   strings.Replace(string(good), "apps/v1", "apps/v1beta1", 1),
		"duplicate field": strings.Replace(string(good), "  replicas: 1\n", "  replicas: 1\n  replicas: 2\n", 1),
	} {
		if _, err := strictDecode([]byte(doc)); err == nil {
			t.Errorf("%s: decoded without an error", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

// TestKubectlDryRun runs kubectl apply --dry-run=client on each overlay
// where kubectl can without a cluster; kubectl asks the API server for its
// resource types even then, so with no cluster configured it skips and says so.
func TestKubectlDryRun(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("no kubectl (Debian: kubernetes-client)")
	}
	if !kustomizeOK() {
		t.Skip("kubectl's kustomize is older than v4")
	}
	root := tree(t)
	kubeconfig := filepath.Join(t.TempDir(), "config")
	// A cluster that is not there: nothing may leave this machine.
	cfg := "apiVersion: v1\nkind: Config\nclusters:\n- name: none\n  cluster: {server: \"https://127.0.0.1:1\"}\ncontexts:\n- name: none\n  context: {cluster: none, user: none}\ncurrent-context: none\nusers:\n- name: none\n  user: {token: none}\n"
	if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, overlay := range overlays {
		out, err := exec.Command("kubectl", "--kubeconfig", kubeconfig, "--request-timeout=5s", "apply", "--dry-run=client", "--validate=false", "-k", filepath.Join(root, "overlays", overlay)).CombinedOutput()
		if err != nil {
			if bytes.Contains(out, []byte("connection refused")) || bytes.Contains(out, []byte("unable to recognize")) {
				t.Skipf("kubectl apply --dry-run=client needs an API server's discovery even on the client; none offline: %s", firstLine(out))
			}
			t.Fatalf("kubectl apply --dry-run=client -k %s: %v\n%s", overlay, err, out)
		}
		t.Logf("%s:\n%s", overlay, out)
	}
}

func firstLine(b []byte) string {
	line, _, _ := bytes.Cut(bytes.TrimSpace(b), []byte("\n"))
	return string(line)
}

func envField(c corev1.Container, name string) string {
	for _, e := range c.Env {
		if e.Name == name && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil {
			return e.ValueFrom.FieldRef.FieldPath
		}
	}
	return ""
}

func argValue(args []string, prefix string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, prefix); ok {
			return v
		}
	}
	return ""
}

// mountAt is the volume mounted at dir in c, or "".
func mountAt(c corev1.Container, dir string) string {
	for _, m := range c.VolumeMounts {
		if m.MountPath == dir {
			return m.Name
		}
	}
	return ""
}

// selects reports whether a selector's labels all appear on labels.
func selects(sel, labels map[string]string) bool {
	if len(sel) == 0 {
		return false
	}
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// splitDocs splits a YAML stream into its documents.
func splitDocs(b []byte) [][]byte {
	var docs [][]byte
	for _, d := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(b), -1) {
		if strings.TrimSpace(stripComments(d)) != "" {
			docs = append(docs, []byte(d))
		}
	}
	return docs
}

func stripComments(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// TestManifestFlagsParse: the flags the manifests give each role are the
// phobos binary's (a renamed or missing flag fails here, not in a pod):
// each role runs with its arguments, variables filled in, and -h last,
// which stops it after parsing them.
func TestManifestFlagsParse(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "phobos")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/phobos").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	docs, _ := render(t, tree(t), "small")
	vars := strings.NewReplacer("$(POD_NAME)", "phobos-scheduler-0", "$(POD_NAMESPACE)", "phobos", "$(CLUSTER_DOMAIN)", "cluster.local",
		"$(ETCD_ENDPOINTS)", "http://127.0.0.1:2379")
	checked := 0
	for _, d := range docs {
		o, err := strictDecode(d)
		if err != nil {
			t.Fatal(err)
		}
		var spec corev1.PodSpec
		switch obj := o.obj.(type) {
		case *appsv1.Deployment:
			spec = obj.Spec.Template.Spec
		case *appsv1.StatefulSet:
			spec = obj.Spec.Template.Spec
		default:
			continue
		}
		c := spec.Containers[0]
		if !strings.HasPrefix(c.Image, "phobos:") {
			continue // etcd
		}
		args := c.Args
		if len(c.Command) > 0 { // the worker's launcher adds these
			args = append([]string{"worker", "--advertise=10-0-0-1.phobos-worker.phobos.svc.cluster.local", "--memory=2147483648"}, args...)
		}
		for i := range args {
			args[i] = vars.Replace(args[i])
			if strings.Contains(args[i], "$(") {
				t.Errorf("%s: %q names a variable this test does not fill", o.name, args[i])
			}
		}
		out, err := exec.Command(bin, append(args, "-h")...).CombinedOutput()
		if err != nil {
			t.Errorf("%s: phobos %s: %v\n%s", o.name, strings.Join(args, " "), err, out)
		}
		checked++
	}
	if checked != 3 {
		t.Errorf("checked the flags of %d roles, want 3 (scheduler, worker, web)", checked)
	}
}
