package explain

import (
	"encoding/json"
	"slices"

	"github.com/gatewright/gatewright/internal/translate"
	"github.com/gatewright/gatewright/internal/values"
)

// outcomeGroups groups contexts by what became of the policy's values there. The fates
// are worked out once per computed chain, which many contexts share.
type outcomeGroups struct {
	source   values.Source
	sets     []values.SetValue
	list     []Outcome
	byFates  map[string]int // by the fates' JSON
	byResult map[*translate.Result]int
}

// add puts the context named name, whose values are res, computed with revision, or
// not computed for err, in its group.
func (g *outcomeGroups) add(name string, res *translate.Result, err error, revision int64) {
	group, done := g.byResult[res]
	if !done {
		fates := ContextFates{}
		if err != nil {
			fates.NotComputed = err.Error()
		} else {
			fates = fatesOf(g.source, g.sets, res)
		}
		key, _ := json.Marshal(fates) // plain data always encodes
		if group, done = g.byFates[string(key)]; !done {
			group = len(g.list)
			g.byFates[string(key)] = group
			g.list = append(g.list, Outcome{Contexts: []string{}, ContextFates: fates})
		}
		if res != nil {
			g.byResult[res] = group
		}
	}
	g.list[group].Count++
	g.list[group].Contexts = append(g.list[group].Contexts, name)
	if at, found := slices.BinarySearch(g.list[group].Revisions, revision); revision > 0 && !found {
		g.list[group].Revisions = slices.Insert(g.list[group].Revisions, at, revision)
	}
}
