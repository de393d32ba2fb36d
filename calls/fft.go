package calls

import (
	"errors"

	"github.com/phobos-tensor/phobos/tensor"
)

// numpy.fft (tensor/fft.go), by NumPy's names under "fft." and NumPy's
// parameter names.
func init() {
	one := []string{"a", "n", "axis", "norm"}
	nd := []string{"a", "s", "axes", "norm"}
	for name, f := range map[string]func(*tensor.Tensor, ...tensor.FFTOption) *tensor.Tensor{
		"fft.fft": tensor.FFT, "fft.ifft": tensor.IFFT, "fft.rfft": tensor.RFFT, "fft.irfft": tensor.IRFFT,
		"fft.hfft": tensor.HFFT, "fft.ihfft": tensor.IHFFT,
	} {
		table[name] = function{one, fft1D(f), 1}
	}
	for name, f := range map[string]func(*tensor.Tensor, ...tensor.FFTOption) *tensor.Tensor{
		"fft.fft2": tensor.FFT2, "fft.ifft2": tensor.IFFT2, "fft.rfft2": tensor.RFFT2, "fft.irfft2": tensor.IRFFT2,
		"fft.fftn": tensor.FFTN, "fft.ifftn": tensor.IFFTN, "fft.rfftn": tensor.RFFTN, "fft.irfftn": tensor.IRFFTN,
	} {
		table[name] = function{nd, fftND(f), 1}
	}
	table["fft.fftshift"] = function{[]string{"x", "axes"}, fftShift(tensor.FFTShift), 1}
	table["fft.ifftshift"] = function{[]string{"x", "axes"}, fftShift(tensor.IFFTShift), 1}
	table["fft.fftfreq"] = function{[]string{"n", "d", "chunks"}, fftFreq(tensor.FFTFreq), 1}
	table["fft.rfftfreq"] = function{[]string{"n", "d", "chunks"}, fftFreq(tensor.RFFTFreq), 1}
}

// fftNorm is the "norm" argument (null: "backward").
func fftNorm(a *args) ([]tensor.FFTOption, error) {
	if !a.has("norm") {
		return nil, nil
	}
	var norm string
	if err := jsonString(a, "norm", &norm); err != nil {
		return nil, err
	}
	return []tensor.FFTOption{tensor.FFTNorm(norm)}, nil
}

// fftInput is the transforms' input "a" and their norm option.
func fftInput(a *args) (*tensor.Tensor, []tensor.FFTOption, error) {
	t, err := a.tensor("a")
	if err != nil {
		return nil, nil, err
	}
	opts, err := fftNorm(a)
	if err != nil {
		return nil, nil, err
	}
	return t, opts, nil
}

func fft1D(f func(*tensor.Tensor, ...tensor.FFTOption) *tensor.Tensor) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		t, opts, err := fftInput(a)
		if err != nil {
			return nil, err
		}
		if a.has("n") {
			n, err := a.int("n", 0)
			if err != nil {
				return nil, err
			}
			opts = append(opts, tensor.FFTLen(n))
		}
		axis, err := a.int("axis", -1)
		if err != nil {
			return nil, err
		}
		return f(t, append(opts, tensor.FFTAxis(axis))...), nil
	}
}

func fftND(f func(*tensor.Tensor, ...tensor.FFTOption) *tensor.Tensor) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		t, opts, err := fftInput(a)
		if err != nil {
			return nil, err
		}
		s, ok, err := a.ints("s")
		if err != nil {
			return nil, err
		}
		if ok {
			opts = append(opts, tensor.FFTShape(s...))
		}
		axes, ok, err := a.ints("axes")
		if err != nil {
			return nil, err
		}
		if ok {
			opts = append(opts, tensor.FFTAxes(axes...))
		}
		return f(t, opts...), nil
	}
}

func fftShift(f func(*tensor.Tensor, ...int) *tensor.Tensor) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		t, err := a.tensor("x")
		if err != nil {
			return nil, err
		}
		axes, ok, err := a.ints("axes")
		if err != nil {
			return nil, err
		}
		if ok && len(axes) == 0 {
			return t, nil // axes=(): nothing rolls
		}
		return f(t, axes...), nil
	}
}

func fftFreq(f func(int, float64, ...tensor.Option) *tensor.Tensor) func(*args) (*tensor.Tensor, error) {
	return func(a *args) (*tensor.Tensor, error) {
		n, err := a.int("n", 0)
		if err != nil {
			return nil, err
		}
		d, err := a.float("d", 1)
		if err != nil {
			return nil, err
		}
		opts, err := chunkOpts(a.vals["chunks"])
		if err != nil {
			return nil, err
		}
		t := f(n, d, opts...)
		if fe, ok := errors.AsType[*tensor.FFTFreqError](t.Err()); ok && fe.Zero {
			return nil, &Error{Kind: "ZeroDivisionError", Err: fe}
		}
		return t, nil
	}
}
