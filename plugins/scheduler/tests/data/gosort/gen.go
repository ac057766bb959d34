// Command gen runs Go's sort.Slice on inputs.json and writes gosort_expected.json (see README.md).
package main

import (
	"encoding/json"
	"os"
	"sort"
)

type tcase struct {
	Mode   string `json:"mode"`
	Keys   []int  `json:"keys"`
	Starts []int  `json:"starts,omitempty"`
	Order  []int  `json:"order"`
	Calls  int    `json:"calls"`
}

func main() {
	raw, err := os.ReadFile("inputs.json")
	if err != nil {
		panic(err)
	}
	var in struct{ Cases []tcase }
	if err := json.Unmarshal(raw, &in); err != nil {
		panic(err)
	}
	for c := range in.Cases {
		tc := &in.Cases[c]
		idx := make([]int, len(tc.Keys))
		for i := range idx {
			idx[i] = i
		}
		clock := 1000000
		startOf := func(e int) int {
			if tc.Starts[e] >= 0 {
				return tc.Starts[e]
			}
			clock++ // time.Now(): later on every call
			return clock
		}
		calls := 0
		sort.Slice(idx, func(i, j int) bool {
			calls++
			a, b := idx[i], idx[j]
			if tc.Mode == "keys" {
				return tc.Keys[a] < tc.Keys[b]
			}
			if tc.Keys[a] != tc.Keys[b] {
				return tc.Keys[a] > tc.Keys[b]
			}
			ta := startOf(a)
			tb := startOf(b)
			return ta < tb
		})
		tc.Order = idx
		tc.Calls = calls
	}
	out, err := json.Marshal(in)
	if err != nil {
		panic(err)
	}
	if err := os.WriteFile("gosort_expected.json", out, 0o644); err != nil {
		panic(err)
	}
}
