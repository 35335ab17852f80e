package render

import (
	"bytes"
	"regexp"
)

// blockScalarStart matches a line whose value is a block scalar (| or >, with its
// chomping and indentation indicators, an optional tag and anchor): "data: |",
// "- >-", "key: !!str |2".
var blockScalarStart = regexp.MustCompile(`^\s*(?:- |[^#\n]*:\s)\s*(?:![^\s]*\s+)?(?:&[^\s]+\s+)?[|>][0-9+-]*\s*(?:#.*)?$`)

// parsedSize is what parsing text into objects costs, in YAML nodes and in bytes of
// block scalar content. A block scalar (a ConfigMap's file, say) parses into one string,
// whatever its lines hold, so its lines count as bytes, not as the nodes their commas
// and line breaks would be elsewhere. Any other line counts its separators: a line
// mistaken for a block scalar's start can only be a scalar itself (a comment, a quoted
// or plain multi-line string), so the lines it takes in are one node too.
func parsedSize(text []byte) (nodes, scalarBytes int) {
	blockIndent := -1 // the indentation of the line that started the block scalar, if in one
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		indent := len(line) - len(bytes.TrimLeft(line, " "))
		if blockIndent >= 0 && (len(bytes.TrimSpace(line)) == 0 || indent > blockIndent) {
			scalarBytes += len(line) + 1
			continue
		}
		blockIndent = -1
		nodes += separators(line) + 1
		if blockScalarStart.Match(line) {
			blockIndent = indent
		}
	}
	return nodes, scalarBytes
}
