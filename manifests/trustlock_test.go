package manifests

import (
	"slices"
	"sync"
	"testing"
)

// Twenty trusts of twenty directories at once keep all twenty: each reads,
// changes and writes the store under its lock.
func TestTrust_Concurrent(t *testing.T) {
	trustHome(t)
	dirs := make([]string, 20)
	for i := range dirs {
		dirs[i] = trustRecipe(t)
	}
	errs := all(dirs, func(d string) error { _, err := Trust(d, false); return err })
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	list, err := TrustList()
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, d := range list {
		got = append(got, d.Dir)
	}
	want := []string{}
	for _, d := range dirs {
		want = append(want, resolveDir(d))
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%d of %d directories kept: %q", len(got), len(want), got)
	}
}

// A Forget that said it removed a directory stays done, whatever trusts of
// other directories run meanwhile.
func TestForget_RacesTrust(t *testing.T) {
	trustHome(t)
	const n = 10
	forget, trust := make([]string, n), make([]string, n)
	for i := range n {
		forget[i], trust[i] = trustRecipe(t), trustRecipe(t)
		if _, err := Trust(forget[i], false); err != nil {
			t.Fatal(err)
		}
	}
	// Each goroutine forgets one directory or trusts another, all at once.
	jobs := append(slices.Clone(forget), trust...)
	errs := all(jobs, func(d string) error {
		if slices.Contains(forget, d) {
			got, err := Forget(d)
			if err == nil && got != resolveDir(d) {
				t.Errorf("Forget(%s) = %q", d, got)
			}
			return err
		}
		_, err := Trust(d, false)
		return err
	})
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range forget {
		if r := mustLoadQuiet(t, d); r.Trust.Trusted {
			t.Errorf("%s is trusted again after Forget said it removed it", d)
		}
	}
	for _, d := range trust {
		if r := mustLoadQuiet(t, d); !r.Trust.Trusted {
			t.Errorf("%s was trusted, and is not", d)
		}
	}
}

// all runs f on every item at once, each in its own goroutine released at
// the same moment, and returns their errors in order.
func all(items []string, f func(string) error) []error {
	errs := make([]error, len(items))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, it := range items {
		wg.Go(func() {
			<-start
			errs[i] = f(it)
		})
	}
	close(start)
	wg.Wait()
	return errs
}

func mustLoadQuiet(t *testing.T, root string) *Recipe {
	t.Helper()
	r, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) != 0 {
		t.Errorf("warnings: %q", r.Warnings)
	}
	return r
}
