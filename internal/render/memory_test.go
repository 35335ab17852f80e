package render_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/gatewright/gatewright/internal/render"
)

// allocationCeiling is what one render may allocate, whatever its templates and values:
// the 32 MiB its functions may draw, the buffers of at most 8 MiB of output, and the
// work of its operations.
const allocationCeiling = 64 << 20

// allocated is how many bytes render allocates, measured from a settled heap.
func allocated(render func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	render()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// hostileValues are what a tenant may set: a string of a megabyte, maps of a megabyte
// and a hundred kilobytes, a YAML document of 100,000 numbers, and numbers for widths and
// counts.
func hostileValues() map[string]any {
	big, medium := map[string]any{}, map[string]any{}
	for i := range 10000 {
		big[fmt.Sprint("key-", i)] = strings.Repeat("v", 100)
		if i < 1000 {
			medium[fmt.Sprint("key-", i)] = strings.Repeat("v", 100)
		}
	}
	var doc strings.Builder
	for i := range 100000 {
		fmt.Fprintf(&doc, "- %d\n", i)
	}
	return map[string]any{
		"n":      80000000,
		"format": "%900000000d",
		"long":   strings.Repeat("x", 1<<20),
		"big":    big,
		"medium": medium,
		"doc":    doc.String(),
	}
}

// A template function fed a tenant's number or a large value, once or in a loop, would
// build gigabytes before the output limit saw a byte. Each refuses before it allocates,
// naming itself, and the whole render stays within the ceiling.
func TestHostileRendersAreRefusedWithinBoundedMemory(t *testing.T) {
	doubling := `{{ $s := repeat 4000000 "x" }}` + strings.Repeat(`{{ $s = printf "%s%s" $s $s }}`, 9) + `{{ len $s }}`
	tests := []struct {
		name     string
		template string
		want     string
	}{
		{"a tenant's indent reaching nindent", `{{ "a\nb" | nindent (int .Values.n) }}`,
			"line 6: nindent would allocate 610.4 MiB, over the 32.0 MiB left of the render's 32 MiB budget"},
		{"a string doubled nine times", doubling, "line 6: printf would allocate"},
		{"toYaml of a value in a loop", `{{ range until 1000 }}{{ $y := toYaml $.Values.medium }}{{ end }}`, "toYaml would allocate"},
		{"toJson of a large value in a loop", `{{ range until 1000 }}{{ $y := toJson $.Values.big }}{{ end }}`, "toJson would allocate"},
		{"toPrettyJson of a large value in a loop", `{{ range until 1000 }}{{ $y := toPrettyJson $.Values.big }}{{ end }}`, "toPrettyJson would allocate"},
		{"toString of a large value in a loop", `{{ range until 1000 }}{{ $y := toString $.Values.big }}{{ end }}`, "toString would allocate"},
		{"toJson of a map that holds itself", `{{ $d := dict }}{{ $_ := set $d "self" $d }}{{ toJson $d }}`, "toJson would allocate"},
		{"toJson of a list that holds the one before it twice, forty times", `{{ $l := list "x" }}{{ range until 40 }}{{ $l = list $l $l }}{{ end }}{{ toJson $l }}`, "toJson would allocate"},
		{"repeat with a tenant's count", `{{ repeat (int .Values.n) "ab" }}`, "repeat would allocate 152.6 MiB"},
		{"printf with a tenant's width", `{{ printf "%*d" (int .Values.n) 1 }}`, "printf would allocate"},
		{"printf with a tenant's precision", `{{ printf "%.*f" (int .Values.n) 1.5 }}`, "printf would allocate"},
		{"printf with a tenant's format", `{{ printf .Values.format 1 }}`, "printf would allocate"},
		{"printf picking one large argument many times", `{{ printf (repeat 100 "%[1]s") .Values.long }}`, "printf would allocate"},
		{"cat of a large string in a loop", `{{ range until 1000 }}{{ $s := cat $.Values.long $.Values.long }}{{ end }}`, "cat would allocate"},
		{"a list appended to in a loop", `{{ $l := list }}{{ range until 10000 }}{{ $l = append $l $.Values.long }}{{ end }}`, "append would allocate"},
		{"printing a list that holds a large string many times", `{{ $l := list }}{{ range until 100 }}{{ $l = append $l $.Values.long }}{{ end }}{{ $l }}`, "printing the value would allocate"},
		{"joining a list that holds a large string many times", `{{ $l := list }}{{ range until 100 }}{{ $l = append $l $.Values.long }}{{ end }}{{ join "," $l }}`, "join would allocate"},
		{"concat of a list with itself, again and again", `{{ $l := until 10000 }}{{ range until 20 }}{{ $l = concat $l $l }}{{ end }}`, "concat would allocate"},
		{"replace with a long replacement between every byte", `{{ replace "" (repeat 1000 "y") .Values.long }}`, "replace would allocate"},
		{"wrapWith a long separator after every byte", `{{ wrapWith 1 (repeat 1000 "y") .Values.long }}`, "wrapWith would allocate"},
		{"splitList of a large string into bytes, in a loop", `{{ range until 100 }}{{ $p := splitList "" $.Values.long }}{{ end }}`, "splitList would allocate"},
		{"regexFindAll of every byte, in a loop", `{{ range until 100 }}{{ $p := regexFindAll "" $.Values.long -1 }}{{ end }}`, "regexFindAll would allocate"},
		{"regexReplaceAll with a long replacement between every byte", `{{ regexReplaceAll "" .Values.long (repeat 1000 "y") }}`, "regexReplaceAll would allocate"},
		{"fromYaml of a large tenant document", `{{ $m := fromYamlArray .Values.doc }}`, "fromYamlArray would allocate"},
		{"fromJson of a large string in a loop", `{{ range until 1000 }}{{ $m := fromJson $.Values.long }}{{ end }}`, "fromJson would allocate"},
		{"deepCopy of a large value in a loop", `{{ range until 1000 }}{{ $c := deepCopy $.Values.big }}{{ end }}`, "deepCopy would allocate"},
		{"upper of a large string in a loop", `{{ range until 1000 }}{{ $u := upper $.Values.long }}{{ end }}`, "upper would allocate"},
		{"b64enc of a large string in a loop", `{{ range until 1000 }}{{ $e := b64enc $.Values.long }}{{ end }}`, "b64enc would allocate"},
		{"quote of a large string in a loop", `{{ range until 1000 }}{{ $q := quote $.Values.long }}{{ end }}`, "quote would allocate"},
		{"tpl of a large text in a loop", `{{ range until 1000 }}{{ $t := tpl $.Values.long $ }}{{ end }}`, "tpl would allocate"},
		{"include writing in a loop", `{{ range until 10000 }}{{ include "kilobyte" . }}{{ end }}{{ define "kilobyte" }}{{ repeat 1000 "x" }}{{ end }}`, "the render wrote more than 8 MiB"},
	}
	values := hostileValues()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parsed, err := render.Parse(gatewayTemplates(t, configMap+"data:\n  a: x"+tt.template+"\n"))
			if err != nil {
				t.Fatal(err)
			}
			in := testInput(values)
			var out *render.Output
			bytes := allocated(func() { out, err = parsed.Gateway(in) })
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
			if out != nil {
				t.Fatalf("a refused render returned objects: %v", out.Objects)
			}
			if bytes > allocationCeiling {
				t.Fatalf("the render allocated %d MiB, over the ceiling of %d MiB", bytes>>20, allocationCeiling>>20)
			}
			t.Logf("allocated %.1f MiB: %v", float64(bytes)/(1<<20), err)
		})
	}
}

// The budget leaves room for what templates do with large values: one toYaml of a
// hundred kilobytes, a printf and a join of a megabyte render.
func TestLargeValuesStillRenderOnce(t *testing.T) {
	template := configMap + "data:\n  yaml: {{ toYaml .Values.medium | quote }}\n  text: {{ printf \"%s-%d\" .Values.long 7 | quote }}\n  keys: {{ keys .Values.big | sortAlpha | join \",\" | quote }}\n"
	out, err := renderGateway(t, gatewayTemplates(t, template), hostileValues())
	if err != nil {
		t.Fatal(err)
	}
	data := out.Objects[0].Object["data"].(map[string]any)
	if got := len(data["text"].(string)); got != 1<<20+2 {
		t.Errorf("text has %d bytes", got)
	}
	if got := strings.Count(data["keys"].(string), ","); got != 9999 {
		t.Errorf("keys has %d commas", got)
	}
}
