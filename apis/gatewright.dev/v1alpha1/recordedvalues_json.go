package v1alpha1

import (
	"encoding/json"
	"fmt"
)

// recordedValuesFields has RecordedValues' fields without its methods, so that encoding
// it does not recurse.
type recordedValuesFields RecordedValues

// Document is the record as the JSON document a Rendering holds in a string;
// MaxRecordedValuesBytes bounds its length.
func (v RecordedValues) Document() ([]byte, error) {
	return json.Marshal(recordedValuesFields(v))
}

// MarshalJSON encodes the record as a string holding its Document.
func (v RecordedValues) MarshalJSON() ([]byte, error) {
	doc, err := v.Document()
	if err != nil {
		return nil, err
	}
	return json.Marshal(string(doc))
}

// UnmarshalJSON reads the record from a string holding its Document, or from the object
// that Renderings written before the record became a string hold.
func (v *RecordedValues) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '{' {
		return json.Unmarshal(data, (*recordedValuesFields)(v))
	}
	var doc string
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("a values record is a JSON document in a string: %w", err)
	}
	return json.Unmarshal([]byte(doc), (*recordedValuesFields)(v))
}
