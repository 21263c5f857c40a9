// Package registry keeps the values live at a moment, such as the calls
// in flight or the functions listening: each is added with a function
// that removes it, and All is what is there now.
package registry

import "sync"

// Set is a set of live values; its zero value is empty and ready.
type Set[T any] struct {
	mu   sync.Mutex
	next int
	live map[int]T
}

// Add puts v in the set until remove is called; removing twice is
// nothing.
func (s *Set[T]) Add(v T) (remove func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live == nil {
		s.live = map[int]T{}
	}
	s.next++
	id := s.next
	s.live[id] = v
	return func() {
		s.mu.Lock()
		delete(s.live, id)
		s.mu.Unlock()
	}
}

// All is the values in the set now, in no order.
func (s *Set[T]) All() []T {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]T, 0, len(s.live))
	for _, v := range s.live {
		out = append(out, v)
	}
	return out
}
