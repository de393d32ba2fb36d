package kubernetes_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// kustomization is the part of kustomize's format these manifests use; the
// strict decode refuses a kustomization using more, so the loader is never
// silently wrong.
type kustomization struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Namespace  string   `json:"namespace"`
	Resources  []string `json:"resources"`
	Patches    []struct {
		Path string `json:"path"`
	} `json:"patches"`
	SecretGenerator []struct {
		Name  string   `json:"name"`
		Files []string `json:"files"`
	} `json:"secretGenerator"`
	GeneratorOptions struct {
		DisableNameSuffixHash bool `json:"disableNameSuffixHash"`
	} `json:"generatorOptions"`
}

// load renders a kustomization as kustomize would for the features above:
// resources (files and directories), secrets from files, the namespace,
// and strategic-merge patches (maps merged, lists of named items merged by
// name). It stands in for kubectl kustomize where that is missing or too old.
func load(dir string) ([]map[string]any, error) {
	b, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		return nil, err
	}
	var k kustomization
	if err := yaml.UnmarshalStrict(b, &k); err != nil {
		return nil, fmt.Errorf("%s/kustomization.yaml: %w", dir, err)
	}
	var objs []map[string]any
	for _, r := range k.Resources {
		p := filepath.Join(dir, r)
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if st.IsDir() {
			sub, err := load(p)
			if err != nil {
				return nil, err
			}
			objs = append(objs, sub...)
			continue
		}
		docs, err := readDocs(p)
		if err != nil {
			return nil, err
		}
		objs = append(objs, docs...)
	}
	if len(k.SecretGenerator) > 0 && !k.GeneratorOptions.DisableNameSuffixHash {
		return nil, fmt.Errorf("%s: secrets with name hashes are beyond this loader", dir)
	}
	for _, g := range k.SecretGenerator {
		data := map[string]any{}
		for _, f := range g.Files {
			key, path, ok := strings.Cut(f, "=")
			if !ok {
				key, path = filepath.Base(f), f
			}
			b, err := os.ReadFile(filepath.Join(dir, path))
			if err != nil {
				return nil, err
			}
			data[key] = base64.StdEncoding.EncodeToString(b)
		}
		objs = append(objs, map[string]any{"apiVersion": "v1", "kind": "Secret", "type": "Opaque", "metadata": map[string]any{"name": g.Name}, "data": data})
	}
	if k.Namespace != "" {
		for _, o := range objs {
			if o["kind"] != "Namespace" {
				meta, _ := o["metadata"].(map[string]any)
				meta["namespace"] = k.Namespace
			}
		}
	}
	for _, p := range k.Patches {
		patches, err := readDocs(filepath.Join(dir, p.Path))
		if err != nil {
			return nil, err
		}
		for _, patch := range patches {
			target := find(objs, patch)
			if target == nil {
				return nil, fmt.Errorf("%s: patch %s %v matches no object", dir, patch["kind"], patch["metadata"])
			}
			merge(target, patch)
		}
	}
	return objs, nil
}

func readDocs(path string) ([]map[string]any, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	for _, d := range splitDocs(b) {
		var m map[string]any
		if err := yaml.Unmarshal(d, &m); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, m)
	}
	return out, nil
}

func name(o map[string]any) string {
	meta, _ := o["metadata"].(map[string]any)
	n, _ := meta["name"].(string)
	return n
}

func find(objs []map[string]any, patch map[string]any) map[string]any {
	for _, o := range objs {
		if o["kind"] == patch["kind"] && name(o) == name(patch) {
			return o
		}
	}
	return nil
}

// merge is a strategic merge for what these patches need.
func merge(dst, src map[string]any) {
	for k, v := range src {
		switch sv := v.(type) {
		case map[string]any:
			if dv, ok := dst[k].(map[string]any); ok {
				merge(dv, sv)
				continue
			}
		case []any:
			if dv, ok := dst[k].([]any); ok && named(sv) && named(dv) {
				dst[k] = mergeNamed(dv, sv)
				continue
			}
		}
		dst[k] = v
	}
}

func named(l []any) bool {
	for _, e := range l {
		m, ok := e.(map[string]any)
		if !ok {
			return false
		}
		if _, ok := m["name"].(string); !ok {
			return false
		}
	}
	return len(l) > 0
}

func mergeNamed(dst, src []any) []any {
	for _, s := range src {
		sm := s.(map[string]any)
		found := false
		for _, d := range dst {
			if dm := d.(map[string]any); dm["name"] == sm["name"] {
				merge(dm, sm)
				found = true
			}
		}
		if !found {
			dst = append(dst, sm)
		}
	}
	return dst
}

// TestLoaderMatchesKustomize: where kubectl kustomize runs, the loader
// renders the same objects, so CI without it checks what kubectl applies.
func TestLoaderMatchesKustomize(t *testing.T) {
	if !kustomizeOK() {
		t.Skip("no kubectl with kustomize v4 or later to compare the loader with")
	}
	root := tree(t)
	for _, overlay := range overlays {
		dir := filepath.Join(root, "overlays", overlay)
		out, err := exec.Command("kubectl", "kustomize", dir).Output()
		if err != nil {
			t.Fatalf("kubectl kustomize %s: %v", overlay, err)
		}
		want := map[string]string{}
		for _, d := range splitDocs(out) {
			var m map[string]any
			if err := yaml.Unmarshal(d, &m); err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(m)
			want[fmt.Sprint(m["kind"], "/", name(m))] = string(b)
		}
		objs, err := load(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(objs) != len(want) {
			t.Errorf("%s: loader %d objects, kustomize %d", overlay, len(objs), len(want))
		}
		for _, o := range objs {
			key := fmt.Sprint(o["kind"], "/", name(o))
			// A round trip through YAML gives both the same number types.
			y, _ := yaml.Marshal(o)
			var m map[string]any
			if err := yaml.Unmarshal(y, &m); err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(m)
			if want[key] != string(b) {
				t.Errorf("%s: %s differs:\nloader    %s\nkustomize %s", overlay, key, b, want[key])
			}
		}
	}
}
