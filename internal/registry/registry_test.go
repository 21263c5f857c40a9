package registry

import (
	"slices"
	"sync"
	"testing"
)

func TestSet(t *testing.T) {
	var s Set[string]
	if got := s.All(); len(got) != 0 {
		t.Fatalf("empty set holds %v", got)
	}
	removeA := s.Add("a")
	s.Add("b")
	removeA2 := s.Add("a") // the same value twice is two entries
	got := s.All()
	slices.Sort(got)
	if !slices.Equal(got, []string{"a", "a", "b"}) {
		t.Errorf("All = %v", got)
	}
	removeA()
	removeA()
	removeA2()
	if got := s.All(); !slices.Equal(got, []string{"b"}) {
		t.Errorf("after removals All = %v", got)
	}
}

// Adds, removals and reads from many goroutines at once (run with -race).
func TestSet_concurrent(t *testing.T) {
	var s Set[int]
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			remove := s.Add(i)
			_ = s.All()
			remove()
		}()
	}
	wg.Wait()
	if got := s.All(); len(got) != 0 {
		t.Errorf("after every removal All = %v", got)
	}
}
