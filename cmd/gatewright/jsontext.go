package main

import (
	"bytes"
	"encoding/json"
)

// jsonText is v as one line of JSON, with <, > and & as they are: a table shows
// "<private>", not "\u003cprivate\u003e".
func jsonText(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
