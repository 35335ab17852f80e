package values

import (
	"slices"
	"strconv"
	"strings"
)

// Known is what a blueprint makes of .Values: the paths its templates read and the
// paths its valuesSchema declares. A value at no known path is a typo or a leftover:
// it renders nothing, and nothing else would say so.
type Known struct {
	// All is true when a template reads .Values whole (toYaml .Values, tpl with the
	// root): any path may be read, so none is unused.
	All bool
	// Nodes are paths known as such but not what lies below them: {{ if .Values.tls }}
	// reads tls and no key under it; a schema object with properties lists its keys.
	Nodes [][]string
	// Subtrees are paths known with everything below them: printed, passed to a
	// function, ranged over, or a schema map or scalar. "[]" stands for any key.
	Subtrees [][]string
}

// UnusedValue is a value in the effective values that no template reads and the
// valuesSchema does not declare.
type UnusedValue struct {
	Path string `json:"path"`
	Origin
	// Suggestion is the known path nearest to Path, when it is close enough to be what
	// was meant; empty otherwise.
	Suggestion string `json:"suggestion,omitempty"`
}

// Note reads "replica (did you mean replicas?)", or just the path.
func (u UnusedValue) Note() string {
	if u.Suggestion == "" {
		return u.Path
	}
	return u.Path + " (did you mean " + u.Suggestion + "?)"
}

// maxSuggestions bounds the unused values that get a suggestion: each costs an edit
// distance to every known path, and a tenant may set 10,000 values nothing reads. A
// message names at most five of them anyway.
const maxSuggestions = 16

// Unused returns the leaves of provenance that are in the values and at no known path,
// in the order of provenance; the first maxSuggestions of them with a suggestion.
func (k Known) Unused(provenance []Leaf) []UnusedValue {
	if k.All {
		return nil
	}
	var out []UnusedValue
	var candidates []string
	for _, leaf := range provenance {
		if leaf.Unset || leaf.DroppedBy != nil {
			continue
		}
		path, ok := parsePath(leaf.Path)
		if !ok || len(path) == 0 || k.knows(path) {
			continue
		}
		unused := UnusedValue{Path: leaf.Path, Origin: leaf.Origin}
		if len(out) < maxSuggestions {
			if candidates == nil {
				candidates = k.paths()
			}
			unused.Suggestion = k.suggest(path, candidates)
		}
		out = append(out, unused)
	}
	return out
}

// suggest finds where path leaves the known paths (labels for lables.team) and the
// known path nearest to that part, and writes path with it in its place.
func (k Known) suggest(path []string, candidates []string) string {
	wrong := 1
	for wrong < len(path) && k.knows(path[:wrong]) {
		wrong++
	}
	near := Nearest(renderPath(path[:wrong]), path[wrong-1], candidates)
	if near == "" {
		return ""
	}
	nearPath, _ := parsePath(near)
	return renderPath(append(nearPath, path[wrong:]...))
}

// knows tells whether path is read or declared: under a known subtree, or on the way
// to a known path (a template that reads .Values.a.b reads a).
func (k Known) knows(path []string) bool {
	for _, known := range k.Subtrees {
		if isPrefix(known, path) || isPrefix(path, known) {
			return true
		}
	}
	for _, known := range k.Nodes {
		if isPrefix(path, known) {
			return true
		}
	}
	return false
}

// isPrefix tells whether prefix leads to path; "[]" in either matches any key.
func isPrefix(prefix, path []string) bool {
	if len(prefix) > len(path) {
		return false
	}
	for i, key := range prefix {
		if key != path[i] && key != "[]" && path[i] != "[]" {
			return false
		}
	}
	return true
}

// paths writes the known paths without items, sorted, for suggestions.
func (k Known) paths() []string {
	var out []string
	for _, path := range slices.Concat(k.Nodes, k.Subtrees) {
		if len(path) > 0 && !slices.Contains(path, "[]") {
			out = append(out, renderPath(path))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Nearest returns the candidate closest to path by edit distance, ignoring case, when
// it is close enough to be a typo of it: at most a third of the last key's length in
// edits. The first of equally close candidates wins; "" when none is close.
func Nearest(path, key string, candidates []string) string {
	best, bestDistance := "", max(1, len(key)/3)+1
	lower := strings.ToLower(path)
	for _, candidate := range candidates {
		if abs(len(candidate)-len(path)) >= bestDistance {
			continue // at least that many edits apart: not worth measuring
		}
		if d := EditDistance(lower, strings.ToLower(candidate)); d < bestDistance && candidate != path {
			best, bestDistance = candidate, d
		}
	}
	return best
}

// EditDistance is how many single-byte insertions, deletions, substitutions and swaps
// of neighbours turn a into b (the optimal string alignment distance): the typos of
// keys are mostly one of those.
func EditDistance(a, b string) int {
	// Three rows of the table are all it reads: the one before last, the last, this one.
	before, last, row := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range last {
		last[j] = j
	}
	for i := 1; i <= len(a); i++ {
		row[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			row[j] = min(last[j]+1, row[j-1]+1, last[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				row[j] = min(row[j], before[j-2]+1)
			}
		}
		before, last, row = last, row, before
	}
	return last[len(b)]
}

// parsePath reads a path as renderPath writes it: a.b["c.d"].e.
func parsePath(s string) ([]string, bool) {
	var path []string
	for s != "" {
		if s[0] == '[' {
			quoted, err := strconv.QuotedPrefix(s[1:])
			if err != nil || !strings.HasPrefix(s[1+len(quoted):], "]") {
				return nil, false
			}
			key, _ := strconv.Unquote(quoted)
			path = append(path, key)
			s = strings.TrimPrefix(s[2+len(quoted):], ".")
			continue
		}
		end := strings.IndexAny(s, ".[")
		if end < 0 {
			end = len(s)
		}
		path = append(path, s[:end])
		s = strings.TrimPrefix(s[end:], ".")
	}
	return path, true
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
