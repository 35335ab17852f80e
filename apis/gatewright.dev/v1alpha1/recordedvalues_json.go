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
// that Renderings written before the record became a string hold. A document that does
// not read (only the controller writes Renderings, so it never should) reads as a record
// that says so in Cut rather than failing: one bad record must not keep the cache from
// holding every other.
func (v *RecordedValues) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '{' {
		v.read(data)
		if v.RecordedAt.IsZero() && v.Blueprint == "" && len(v.Provenance) == 0 && v.Cut == "" {
			// The API server prunes an older record to {} under the schema that makes it a
			// string: say so rather than show no values.
			v.Cut = "the values record was written before the Rendering CRD made it a string and reads empty; the controller records it again at its next reconcile"
		}
		return nil
	}
	var doc string
	if err := json.Unmarshal(data, &doc); err != nil {
		*v = RecordedValues{Cut: fmt.Sprintf("the values record is not a JSON document in a string: %v", err)}
		return nil
	}
	v.read([]byte(doc))
	return nil
}

// read sets v to the record doc holds, or to one that says doc does not read.
func (v *RecordedValues) read(doc []byte) {
	var fields recordedValuesFields
	if err := json.Unmarshal(doc, &fields); err != nil {
		*v = RecordedValues{Cut: fmt.Sprintf("the values record does not read: %v", err)}
		return
	}
	*v = RecordedValues(fields)
}
