package tlscert

import (
	"container/list"
	"sync"

	corev1 "k8s.io/api/core/v1"
)

// Verdicts keeps the verdict on each Secret at the resourceVersion it was judged, for at
// most a fixed number of Secrets, dropping the least recently used. Safe for concurrent use.
type Verdicts struct {
	mu      sync.Mutex
	max     int
	entries map[string]*list.Element
	order   *list.List // front: most recently used
}

type verdict struct {
	key, resourceVersion string
	// why is empty when the Secret is usable.
	why string
}

// NewVerdicts keeps the verdicts on up to max Secrets.
func NewVerdicts(max int) *Verdicts {
	return &Verdicts{max: max, entries: map[string]*list.Element{}, order: list.New()}
}

// Fetch reads a Secret from the API server; nil when it does not exist.
type Fetch func() (*corev1.Secret, error)

// Judge returns the verdict on the Secret namespace/name whose current resourceVersion
// is resourceVersion: "" when it is usable, else why not (Check). It calls fetch only
// when no verdict of that resourceVersion is kept, and keeps the verdict on what fetch
// read under the resourceVersion it read, which may be newer.
func (v *Verdicts) Judge(namespace, name, resourceVersion string, fetch Fetch) (string, error) {
	key := namespace + "/" + name
	if why, ok := v.get(key, resourceVersion); ok {
		return why, nil
	}
	secret, err := fetch()
	if err != nil {
		return "", err
	}
	if secret == nil {
		v.forget(key)
		return "does not exist", nil
	}
	why := ""
	if problem := Check(secret); problem != nil {
		why = problem.Error()
	}
	v.put(verdict{key: key, resourceVersion: secret.ResourceVersion, why: why})
	return why, nil
}

// Len is how many verdicts are kept.
func (v *Verdicts) Len() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.order.Len()
}

func (v *Verdicts) get(key, resourceVersion string) (string, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	e, ok := v.entries[key]
	if !ok || e.Value.(verdict).resourceVersion != resourceVersion {
		return "", false
	}
	v.order.MoveToFront(e)
	return e.Value.(verdict).why, true
}

func (v *Verdicts) put(entry verdict) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if e, ok := v.entries[entry.key]; ok {
		e.Value = entry
		v.order.MoveToFront(e)
		return
	}
	v.entries[entry.key] = v.order.PushFront(entry)
	for v.order.Len() > v.max {
		oldest := v.order.Back()
		v.order.Remove(oldest)
		delete(v.entries, oldest.Value.(verdict).key)
	}
}

func (v *Verdicts) forget(key string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if e, ok := v.entries[key]; ok {
		v.order.Remove(e)
		delete(v.entries, key)
	}
}
