package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/gatewright/gatewright/internal/diff"
)

// printDiff prints the report as text: a block per Gateway and route, at most limit of
// them (0: all), then the policies, at most limit, then the summary line, always last.
func printDiff(out io.Writer, r *diff.Report, limit int) error {
	var b strings.Builder
	if r.Partial {
		b.WriteString("PARTIAL: computed without what could not be read, which the answer depends on; what is not shown may change too:\n")
		for _, u := range r.Unread {
			fmt.Fprintf(&b, "  cannot read %s\n", u)
		}
		b.WriteString("\n")
	}
	entries := append(append([]diff.Entry(nil), r.Gateways...), r.Routes...)
	shown := bounded(len(entries), limit)
	for _, e := range entries[:shown] {
		writeEntry(&b, e)
	}
	if more := len(entries) - shown; more > 0 {
		fmt.Fprintf(&b, "... and %d more Gateways and routes that change (--limit %d)\n\n", more, limit)
	}
	if len(r.Policies) > 0 {
		b.WriteString("Policies whose Programmed verdict changes, over the Gateways and routes reached:\n")
		shown := bounded(len(r.Policies), limit)
		for _, p := range r.Policies[:shown] {
			fmt.Fprintf(&b, "  %s %s/%s: %s -> %s", p.Kind, p.Namespace, p.Name, orNone(p.Programmed.Old), orNone(p.Programmed.New))
			if p.Message != "" {
				fmt.Fprintf(&b, ": %s", p.Message)
			}
			b.WriteString("\n")
		}
		if more := len(r.Policies) - shown; more > 0 {
			fmt.Fprintf(&b, "  ... and %d more (--limit %d)\n", more, limit)
		}
		b.WriteString("\n")
	}
	if r.Partial {
		b.WriteString("partial: ")
	}
	b.WriteString(summaryLine(r.Summary))
	_, err := io.WriteString(out, b.String())
	return err
}

func writeEntry(b *strings.Builder, e diff.Entry) {
	if e.Gateway == "" {
		fmt.Fprintf(b, "Gateway %s/%s\n", e.Namespace, e.Name)
	} else {
		fmt.Fprintf(b, "%s %s/%s on Gateway %s\n", e.Kind, e.Namespace, e.Name, e.Gateway)
	}
	if len(e.Values) > 0 {
		b.WriteString("  values:\n")
		for _, v := range e.Values {
			fmt.Fprintf(b, "    %s: %s -> %s", v.Path, valueText(v.Old), valueText(v.New))
			if v.Source != "" {
				fmt.Fprintf(b, "  (%s)", v.Source)
			}
			b.WriteString("\n")
		}
	}
	if len(e.Objects) > 0 {
		b.WriteString("  objects:\n")
		for _, o := range e.Objects {
			name := o.Name
			if o.Namespace != "" {
				name = o.Namespace + "/" + o.Name
			}
			fmt.Fprintf(b, "    %s %s %s %s\n", o.Action, o.APIVersion, o.Kind, name)
			for line := range strings.Lines(o.Diff) {
				b.WriteString("      " + line)
			}
		}
	}
	if len(e.Conditions) > 0 {
		b.WriteString("  conditions:\n")
		for _, c := range e.Conditions {
			fmt.Fprintf(b, "    %s: %s -> %s", c.Type, orNone(c.Old), orNone(c.New))
			if c.Message != "" {
				fmt.Fprintf(b, ": %s", c.Message)
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
}

// summaryLine reads "2 Gateways and 3 routes reached: 1 object(s) created, 2 updated,
// 0 pruned; 1 Gateway(s) would fail (0 of them already did)".
func summaryLine(s diff.Summary) string {
	return fmt.Sprintf("%d Gateway(s) and %d route(s) reached: %d object(s) created, %d updated, %d pruned; %d Gateway(s) would fail (%d of them already did)\n",
		s.Gateways, s.Routes, s.Created, s.Updated, s.Pruned, s.Failing, s.FailingBefore)
}

// valueText is a value as one line of JSON; "(none)" for an absent one.
func valueText(v any) string {
	if v == nil {
		return "(none)"
	}
	text, err := jsonText(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(text)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func bounded(n, limit int) int {
	if limit <= 0 || n < limit {
		return n
	}
	return limit
}

// printDiffJSON prints the report as JSON: everything, unless --limit is given, which
// then bounds the Gateways, the routes and the policies each, and notes what it left out.
func printDiffJSON(out io.Writer, r *diff.Report, opts diffOptions) error {
	if opts.limitSet && opts.limit > 0 {
		cut := *r
		cut.Gateways = r.Gateways[:bounded(len(r.Gateways), opts.limit)]
		cut.Routes = r.Routes[:bounded(len(r.Routes), opts.limit)]
		cut.Policies = r.Policies[:bounded(len(r.Policies), opts.limit)]
		if more := len(r.Gateways) + len(r.Routes) + len(r.Policies) - len(cut.Gateways) - len(cut.Routes) - len(cut.Policies); more > 0 {
			cut.Notes = append(append([]string(nil), r.Notes...), fmt.Sprintf("%d more Gateways, routes and policies that change are left out (--limit %d)", more, opts.limit))
		}
		r = &cut
	}
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
