package values

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// blockSize is what a scan measured of a block within the bounds.
type blockSize struct {
	bytes, elements int
	// conditional: the block has a when at its top level.
	conditional bool
}

// scanLimits reads a block's JSON byte by byte, without decoding it, and returns its
// size, or the first bound it exceeds and where. It stops there, so a block nested 10,000 deep costs
// no more than one nested 65 deep, and it allocates nothing but the stack of open
// containers. It trusts the JSON to be well formed: the decoder, which runs next,
// reports it if not.
func scanLimits(raw []byte) (blockSize, Limit, string) {
	size := blockSize{bytes: len(raw)}
	if len(raw) > MaxBytes {
		return size, LimitBytes, ""
	}
	var open []container // never more than MaxDepth
	elements := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			continue
		}
		var top *container
		if len(open) > 0 {
			top = &open[len(open)-1]
		}
		if top != nil && top.list && top.expectItem && c != ']' {
			top.expectItem = false
			if elements++; elements > MaxElements {
				return size, LimitElements, shortPath(open)
			}
		}
		switch c {
		case '"':
			end := stringEnd(raw, i)
			if top != nil && !top.list && top.expectKey {
				top.key, top.expectKey = raw[i:end+1], false
				top.pathBytes = end - i - 1
				if len(open) > 1 {
					top.pathBytes += open[len(open)-2].pathBytes
				}
				if elements++; elements > MaxElements {
					return size, LimitElements, shortPath(open)
				}
				if len(open) == 1 && isKey(top.key, keyWhen) {
					size.conditional = true
				}
				if top.pathBytes > MaxPathBytes {
					return size, LimitPathBytes, shortPath(open)
				}
			}
			i = end
		case '{', '[':
			if len(open) == MaxDepth {
				return size, LimitDepth, shortPath(open)
			}
			next := container{list: c == '[', expectKey: c == '{', expectItem: c == '['}
			if top != nil {
				next.pathBytes = top.pathBytes
			}
			open = append(open, next)
		case '}', ']':
			if top != nil {
				open = open[:len(open)-1]
			}
		case ',':
			if top != nil {
				top.index++
				top.expectKey, top.expectItem = !top.list, top.list
			}
		}
	}
	size.elements = elements
	return size, "", ""
}

// isKey tells whether the quoted key is word, however the JSON spells it.
func isKey(quoted []byte, word string) bool {
	if !bytes.ContainsRune(quoted, '\\') {
		return len(quoted) == len(word)+2 && string(quoted[1:len(quoted)-1]) == word
	}
	return len(quoted) <= 6*len(word)+2 && unquote(quoted) == word
}

// stringEnd returns the index of the quote that closes the string opened at start, or
// the last index when the string is not closed.
func stringEnd(raw []byte, start int) int {
	for i := start + 1; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(raw) - 1
}

// container is an object or a list the scan is inside, and where in it the scan is.
type container struct {
	list       bool
	expectKey  bool   // in an object: the next string is a key
	expectItem bool   // in a list: the next value is an item, to count
	key        []byte // in an object: the current key, quoted as in the JSON
	index      int    // in a list: the current item
	pathBytes  int    // the keys from the root to the current position, as written
}

const (
	shownSteps    = 5  // of a path in a message
	shownKeyBytes = 20 // of each key shown
)

// shortPath writes where the scan is, as renderPath would, but only the first steps
// and the start of each key, so that an error message stays well under 1 KiB.
func shortPath(open []container) string {
	var b strings.Builder
	for i, c := range open {
		if i == shownSteps {
			b.WriteString("…")
			break
		}
		if c.list {
			b.WriteString("[" + strconv.Itoa(c.index) + "]")
			continue
		}
		key, cut := cutKey(unquote(c.key))
		writeKey(&b, key, i == 0)
		if cut {
			b.WriteString("…")
		}
	}
	return b.String()
}

// unquote decodes a JSON string, or shows it as it is written when it does not decode.
func unquote(quoted []byte) string {
	var s string
	if json.Unmarshal(quoted, &s) != nil {
		return strings.ToValidUTF8(string(quoted), "\uFFFD")
	}
	return s
}

// cutKey shortens a long key on a character boundary.
func cutKey(key string) (string, bool) { return cutAt(key, shownKeyBytes) }

// cutAt shortens text to at most n bytes on a character boundary, and tells whether it
// did.
func cutAt(text string, n int) (string, bool) {
	if len(text) <= n {
		return text, false
	}
	end := n
	for end > 0 && !utf8.RuneStart(text[end]) {
		end--
	}
	return text[:end], true
}
