package render

import "reflect"

// extent bounds the text a value makes in any of the forms that functions write it in
// (fmt's %v, quoted, JSON, YAML), and counts its nodes (scalars, lists, maps), on which
// the work of encoders and decoders grows more than on bytes.
type extent struct{ bytes, nodes int }

// Bytes a scalar other than a string prints as, at most ("-1.7976931348623157e+308").
const scalarBytes = 24

// measure is the extent of v, measured until its bytes pass limit. A list may hold the
// same string or list many times, level after level, and a map may hold itself (sprig's
// set): such values stand for far more text than memory, so measuring stops at the limit.
func measure(v reflect.Value, limit int) extent {
	var e extent
	e.add(v, 0, limit)
	return e
}

// add measures v at depth: every node is indented by its depth in YAML, and takes a
// separator, a dash or a colon and a line end.
func (e *extent) add(v reflect.Value, depth, limit int) {
	if e.bytes > limit {
		return
	}
	e.nodes++
	e.bytes += 2*depth + 4
	switch v.Kind() {
	case reflect.Invalid:
	case reflect.Interface, reflect.Pointer:
		if !v.IsNil() {
			e.nodes--
			e.add(v.Elem(), depth, limit)
		}
	case reflect.String:
		e.bytes += quotedBytes(v.String(), depth)
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len() && e.bytes <= limit; i++ {
			e.add(v.Index(i), depth+1, limit)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next() && e.bytes <= limit; {
			e.add(it.Key(), depth+1, limit)
			e.add(it.Value(), depth+1, limit)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField() && e.bytes <= limit; i++ {
			e.bytes += len(v.Type().Field(i).Name)
			e.add(v.Field(i), depth+1, limit)
		}
	default:
		e.bytes += scalarBytes
	}
}

// quotedBytes bounds s written quoted or escaped at depth: a byte that some encoder
// escapes takes up to six ("\u00e9", or U+FFFD for a byte of invalid UTF-8), and a
// line break in a YAML block scalar indents the next line.
func quotedBytes(s string, depth int) int {
	n := len(s) + 2
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\'' || c == '\\' || c == '<' || c == '>' || c == '&' {
			n += 7 + 2*depth
		}
	}
	return n
}
