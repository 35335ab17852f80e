package values

import (
	"strconv"
	"strings"
)

// renderPath writes a path the way a template author reads it: dotted, with keys that
// are not plain words quoted in brackets (labels["app.kubernetes.io/name"]).
func renderPath(path []string) string {
	var b strings.Builder
	for i, key := range path {
		writeKey(&b, key, i == 0)
	}
	return b.String()
}

// writeKey appends one key of a path to b.
func writeKey(b *strings.Builder, key string, first bool) {
	switch {
	case !plainKey(key):
		b.WriteString("[" + strconv.Quote(key) + "]")
	case !first:
		b.WriteString("." + key)
	default:
		b.WriteString(key)
	}
}

// plainKey matches [A-Za-z_][A-Za-z0-9_-]*.
func plainKey(key string) bool {
	if key == "" {
		return false
	}
	for i, r := range key {
		switch {
		case r == '_', 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
		case i > 0 && (r == '-' || '0' <= r && r <= '9'):
		default:
			return false
		}
	}
	return true
}
