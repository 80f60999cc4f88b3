package model

import "encoding/json"

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// F64 is a float64 that marshals non-finite values as the strings "inf",
// "-inf" and "NaN" (encoding/json refuses them) and finite ones in the
// shortest round-trip form.
type F64 float64

func (f F64) MarshalJSON() ([]byte, error) { return []byte(formatNum(float64(f))), nil }
