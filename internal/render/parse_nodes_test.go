package render

import "testing"

func TestParsedSizeCountsBlockScalarsAsBytes(t *testing.T) {
	tests := []struct {
		name               string
		text               string
		nodes, scalarBytes int
	}{
		{
			name:  "a ConfigMap's file is one string, whatever its commas",
			text:  "data:\n  f: |\n    a,b,c\n\n    {d: [e]}\n  g: x\n",
			nodes: 3, scalarBytes: len("    a,b,c\n\n    {d: [e]}\n"),
		},
		{
			name:  "a block scalar with indicators, a tag and an anchor",
			text:  "- !!str &x >-2\n    a,b\nk: v\n",
			nodes: 2, scalarBytes: len("    a,b\n"),
		},
		{
			name:  "a flow list is a node per item",
			text:  "a: [1,2,3]\nb: {c: d, e: f}\n",
			nodes: 3 + 1 + 2 + 1,
		},
		{
			name:  "a bar in a comment or a value starts no block scalar",
			text:  "a: b # |\n  0,0,0\nc: \"x |\"\n  1,1\n",
			nodes: 1 + 3 + 1 + 2,
		},
		{
			name:  "a line no deeper than the block's key ends it",
			text:  "f: |\n  a\nb: [1,2]\n",
			nodes: 1 + 3, scalarBytes: len("  a\n"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes, scalarBytes := parsedSize([]byte(tt.text))
			if nodes != tt.nodes || scalarBytes != tt.scalarBytes {
				t.Errorf("got %d nodes and %d bytes of block scalars, want %d and %d", nodes, scalarBytes, tt.nodes, tt.scalarBytes)
			}
		})
	}
}
