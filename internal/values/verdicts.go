package values

import (
	"container/list"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"math"
	"sync"
)

// A condition's outcome depends on nothing but its expression and the values below its
// block (no clock, no other objects), so it is remembered by both: a class-wide policy
// judged over many Gateways whose values below a condition are the same (every Gateway of
// a namespace, under the namespace's policies) evaluates it once, and so do the Gateways'
// own computations of the same values. The key is a SHA-256 of the expression and the
// values, whose computation walks the values once, as handing them to CEL does.

// maxVerdicts bounds the outcomes kept; each is a few dozen bytes and its message.
const maxVerdicts = 4096

// verdict is the outcome of one evaluation.
type verdict struct {
	holds   bool
	cost    uint64
	failure string // the error, "" for none
}

func (v verdict) err() error {
	if v.failure == "" {
		return nil
	}
	return errors.New(v.failure)
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

type verdictCache struct {
	mu      sync.Mutex
	entries map[[sha256.Size]byte]*list.Element // of *keptVerdict
	recent  *list.List
	max     int
}

type keptVerdict struct {
	key [sha256.Size]byte
	verdict
}

var verdicts = &verdictCache{entries: map[[sha256.Size]byte]*list.Element{}, recent: list.New(), max: maxVerdicts}

func (c *verdictCache) get(key [sha256.Size]byte) (verdict, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	element, ok := c.entries[key]
	if !ok {
		return verdict{}, false
	}
	c.recent.MoveToFront(element)
	return element.Value.(*keptVerdict).verdict, true
}

func (c *verdictCache) put(key [sha256.Size]byte, v verdict) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; ok {
		return
	}
	c.entries[key] = c.recent.PushFront(&keptVerdict{key: key, verdict: v})
	for c.recent.Len() > c.max {
		oldest := c.recent.Back()
		c.recent.Remove(oldest)
		delete(c.entries, oldest.Value.(*keptVerdict).key)
	}
}

// verdictKey names the evaluation of expression over self.
func verdictKey(expression string, self map[string]any) [sha256.Size]byte {
	h := sha256.New()
	writeString(h, expression)
	writeValue(h, self)
	var key [sha256.Size]byte
	h.Sum(key[:0])
	return key
}

// writeValue writes v to h unambiguously: a tag for its type, lengths before contents,
// an object's keys in order.
func writeValue(h hash.Hash, v any) {
	switch v := v.(type) {
	case nil:
		h.Write([]byte{'n'})
	case bool:
		if v {
			h.Write([]byte{'t'})
		} else {
			h.Write([]byte{'f'})
		}
	case string:
		h.Write([]byte{'s'})
		writeString(h, v)
	case int64:
		h.Write(binary.BigEndian.AppendUint64([]byte{'i'}, uint64(v)))
	case float64:
		h.Write(binary.BigEndian.AppendUint64([]byte{'d'}, math.Float64bits(v)))
	case []any:
		h.Write(binary.BigEndian.AppendUint64([]byte{'l'}, uint64(len(v))))
		for _, item := range v {
			writeValue(h, item)
		}
	case map[string]any:
		h.Write(binary.BigEndian.AppendUint64([]byte{'m'}, uint64(len(v))))
		for _, key := range sortedKeys(v) {
			writeString(h, key)
			writeValue(h, v[key])
		}
	default:
		h.Write([]byte{'?'})
		writeString(h, fmt.Sprintf("%T %v", v, v))
	}
}

func writeString(h hash.Hash, s string) {
	h.Write(binary.BigEndian.AppendUint64(nil, uint64(len(s))))
	h.Write([]byte(s))
}
