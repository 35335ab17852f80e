package values

import (
	"regexp"
	"strconv"
	"strings"
)

var plainKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// renderPath writes a path the way a template author reads it: dotted, with keys that
// are not plain words quoted in brackets (labels["app.kubernetes.io/name"]).
func renderPath(path []string) string {
	var b strings.Builder
	for i, key := range path {
		switch {
		case !plainKey.MatchString(key):
			b.WriteString("[" + strconv.Quote(key) + "]")
		case i > 0:
			b.WriteString("." + key)
		default:
			b.WriteString(key)
		}
	}
	return b.String()
}
