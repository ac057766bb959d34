// Command gen computes, for each scenario of scenarios.json, the victims kube-scheduler v1.34
// picks on the scenario's one node, and writes expected.json (see README.md).
//
// It models only what decides ties, in upstream's own terms: the NodeInfo.Pods slice
// (AddPodInfo appends, RemovePod moves the last pod into the removed slot, an update is
// remove + add), SelectVictimsOnNode (lower-priority pods in slice order, sort.Slice by
// MoreImportantPod with GetPodStartTime = time.Now() for pods without a start time,
// filterPodsWithPDBViolation, reprieve violating pods first, the second sort), and
// NodeResourcesFit on cpu alone.
package main

import (
	"encoding/json"
	"os"
	"sort"
	"time"
)

type pod struct {
	Name  string `json:"name"`
	Prio  int    `json:"prio"`
	Start *int64 `json:"start"`
	CPU   int    `json:"cpu"`
	PDB   bool   `json:"pdb"`
}

type event struct {
	Op   string `json:"op"`
	Name string `json:"name"`
}

type scenario struct {
	Name       string  `json:"name"`
	NodeCPU    int     `json:"node_cpu"`
	Pods       []pod   `json:"pods"`
	Events     []event `json:"events"`
	Preemptor  pod     `json:"preemptor"`
	PDBAllowed *int    `json:"pdb_allowed"`
}

type result struct {
	Name         string   `json:"name"`
	SliceOrder   []string `json:"slice_order"`
	Victims      []string `json:"victims"`
	NumViolating int      `json:"num_violating"`
}

func removeFromSlice(s []*pod, name string) []*pod {
	for i := range s {
		if s[i].Name == name {
			s[i] = s[len(s)-1]
			return s[:len(s)-1]
		}
	}
	panic("no pod " + name)
}

func startTime(p *pod) time.Time {
	if p.Start != nil {
		return time.Unix(*p.Start, 0)
	}
	return time.Now()
}

func moreImportant(a, b *pod) bool {
	if a.Prio != b.Prio {
		return a.Prio > b.Prio
	}
	return startTime(a).Before(startTime(b))
}

func run(sc scenario) result {
	byName := map[string]*pod{}
	for i := range sc.Pods {
		byName[sc.Pods[i].Name] = &sc.Pods[i]
	}
	var slice []*pod
	for _, e := range sc.Events {
		switch e.Op {
		case "add":
			slice = append(slice, byName[e.Name])
		case "update":
			slice = removeFromSlice(slice, e.Name)
			slice = append(slice, byName[e.Name])
		case "delete":
			slice = removeFromSlice(slice, e.Name)
		}
	}
	res := result{Name: sc.Name}
	for _, p := range slice {
		res.SliceOrder = append(res.SliceOrder, p.Name)
	}
	used := 0
	var potential []*pod
	for _, p := range slice {
		if p.Prio < sc.Preemptor.Prio {
			potential = append(potential, p)
		} else {
			used += p.CPU
		}
	}
	sort.Slice(potential, func(i, j int) bool { return moreImportant(potential[i], potential[j]) })
	var violating, nonViolating []*pod
	allowed := 0
	if sc.PDBAllowed != nil {
		allowed = *sc.PDBAllowed
	}
	for _, p := range potential {
		violated := false
		if sc.PDBAllowed != nil && p.PDB {
			allowed--
			violated = allowed < 0
		}
		if violated {
			violating = append(violating, p)
		} else {
			nonViolating = append(nonViolating, p)
		}
	}
	var victims []*pod
	reprieve := func(p *pod) bool {
		if used+p.CPU+sc.Preemptor.CPU <= sc.NodeCPU {
			used += p.CPU
			return true
		}
		victims = append(victims, p)
		return false
	}
	for _, p := range violating {
		if !reprieve(p) {
			res.NumViolating++
		}
	}
	for _, p := range nonViolating {
		reprieve(p)
	}
	if len(violating) != 0 && len(nonViolating) != 0 {
		sort.Slice(victims, func(i, j int) bool { return moreImportant(victims[i], victims[j]) })
	}
	for _, p := range victims {
		res.Victims = append(res.Victims, p.Name)
	}
	return res
}

func main() {
	raw, err := os.ReadFile("scenarios.json")
	if err != nil {
		panic(err)
	}
	var in struct {
		Scenarios []scenario `json:"scenarios"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		panic(err)
	}
	var out struct {
		Results []result `json:"results"`
	}
	for _, sc := range in.Scenarios {
		out.Results = append(out.Results, run(sc))
	}
	b, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		panic(err)
	}
	if err := os.WriteFile("expected.json", append(b, '\n'), 0o644); err != nil {
		panic(err)
	}
}
