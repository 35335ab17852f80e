package explain

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/gatewright/gatewright/internal/routing"
)

// WriteAnswer writes the answer to req for people, as `gatewright explain request`
// prints it: where the request went, what the client gets, what each backend receives.
func WriteAnswer(out io.Writer, exp Explanation, req routing.Request) error {
	w := &lineWriter{w: out}
	hostPort := req.Host
	if (req.Scheme == "http" && req.Port != 80) || (req.Scheme == "https" && req.Port != 443) {
		hostPort = fmt.Sprintf("%s:%d", req.Host, req.Port)
	}
	w.printf("%s %s://%s%s", req.Method, req.Scheme, hostPort, req.Path)
	w.printf("Gateway:  %s/%s", exp.Gateway.Namespace, exp.Gateway.Name)
	listener := exp.Listener
	if listener == "" {
		listener = "(none takes the request)"
	}
	w.printf("Listener: %s", listener)
	if exp.Route != nil {
		w.printf("Route:    %s %s/%s, rule %d, match %d", exp.Route.Kind, exp.Route.Namespace, exp.Route.Name, exp.Rule, exp.Match)
	} else {
		w.printf("Route:    (none matches)")
	}
	w.printf("Answer:   %d %s", exp.Response.Status, answerKind(exp))
	printStringMap(w, "  ", exp.Response.Headers)
	if m := exp.Response.HeaderModifier; len(m.Set)+len(m.Add)+len(m.Remove) > 0 {
		w.printf("Response headers from the backend, changed:")
		printStringMap(w, "  set ", m.Set)
		printStringMap(w, "  add ", m.Add)
		for _, name := range m.Remove {
			w.printf("  remove %s", name)
		}
	}
	if len(exp.Backends) > 0 {
		var total int32
		for _, b := range exp.Backends {
			total += b.Weight
		}
		w.printf("Backends:")
		for _, b := range exp.Backends {
			w.printf("  %s %s/%s:%d  weight %d (%.0f%%)", b.Kind, b.Namespace, b.Name, b.Port, b.Weight, 100*float64(b.Weight)/float64(total))
		}
		w.printf("The backends receive:")
		printForwarded(w, "  ", exp.Request)
		for _, b := range exp.Backends {
			if b.Request != nil {
				w.printf("%s %s/%s receives, after its own filters:", b.Kind, b.Namespace, b.Name)
				printForwarded(w, "  ", *b.Request)
			}
		}
	}
	for _, note := range exp.Notes {
		w.printf("Note: %s", note)
	}
	return w.err
}

func answerKind(exp Explanation) string {
	switch status := exp.Response.Status; {
	case len(exp.Backends) > 0:
		return "forwarded to a backend"
	case status >= 300 && status < 400:
		return "redirect, answered by the Gateway"
	case status == 404:
		return "not found: no route takes the request"
	case status == 500:
		return "no valid backend"
	}
	return "answered by the Gateway"
}

func printForwarded(w *lineWriter, indent string, f routing.Forwarded) {
	w.printf("%s%s %s://%s%s", indent, f.Method, f.Scheme, f.Host, f.Path)
	for _, name := range slices.Sorted(maps.Keys(f.Headers)) {
		w.printf("%s%s: %s", indent, name, strings.Join(f.Headers[name], ", "))
	}
}

func printStringMap(w *lineWriter, prefix string, m map[string]string) {
	for _, name := range slices.Sorted(maps.Keys(m)) {
		w.printf("%s%s: %s", prefix, name, m[name])
	}
}

// lineWriter prints lines and keeps the first error.
type lineWriter struct {
	w   io.Writer
	err error
}

func (l *lineWriter) printf(format string, args ...any) {
	if l.err == nil {
		_, l.err = fmt.Fprintf(l.w, format+"\n", args...)
	}
}
