package values

import (
	"container/list"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"sync"

	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// matches is the one call of CEL's standard library whose work is not linear in what it
// reads: RE2 steps through the string once, but at each byte through every instruction
// of the pattern's program, and a.{1000} is 7 bytes of pattern and a thousand
// instructions. CEL charges it after the call, by the bytes of the pattern, so a single
// call could run for seconds within any bound. Here a call is charged by the string
// times the program and refused, before anything runs, when that is over the bound of
// one evaluation; a refused call is an evaluation error, so its block fails closed.

// maxCachedPatterns bounds the compiled patterns kept: a condition that matches in a
// loop compiles its pattern once.
const maxCachedPatterns = 256

// pattern is a compiled pattern and the size of its program.
type pattern struct {
	re    *regexp.Regexp
	insts uint64
	err   error
}

// matchCost is the charge for matching str against pat: a tenth of a unit per byte of
// the string (CEL's string traversal) times a quarter per instruction of the pattern
// (CEL's RegexStringLengthCostFactor, which CEL applies to the pattern's bytes), never
// less than CEL's own charge. It returns the compiled pattern when the charge is within
// MaxWhenCost.
func matchCost(str, pat ref.Val) (uint64, *pattern) {
	s, p := textSize(str), textSize(pat)
	byBytes := traversal(s+1) * quarter(p)
	text, isString := pat.(types.String)
	if byBytes > MaxWhenCost || !isString {
		return byBytes, nil
	}
	compiled := patterns.get(string(text))
	if compiled.err != nil {
		return byBytes, compiled
	}
	return max(byBytes, traversal(s+1)*quarter(compiled.insts)), compiled
}

func quarter(n uint64) uint64 {
	return max(1, uint64(math.Ceil(float64(n)*common.RegexStringLengthCostFactor)))
}

// boundedMatches is the binding of matches (string.matches(pattern) and
// matches(string, pattern)).
func boundedMatches(str, pat ref.Val) ref.Val {
	s, isString := str.(types.String)
	if _, isPattern := pat.(types.String); !isString || !isPattern {
		return types.MaybeNoSuchOverloadErr(str)
	}
	cost, compiled := matchCost(str, pat)
	switch {
	case cost > MaxWhenCost:
		return types.NewErr("matches not run: a string of %d bytes against a pattern of %d bytes would cost %d units, more than the %d of a condition",
			len(s), textSize(pat), cost, MaxWhenCost)
	case compiled.err != nil:
		return types.NewErr("%s", compiled.err)
	}
	return types.Bool(compiled.re.MatchString(string(s)))
}

// patternCache keeps the most recently used compiled patterns. Safe for concurrent use.
type patternCache struct {
	mu      sync.Mutex
	entries map[string]*list.Element // of *cachedPattern
	recent  *list.List
}

type cachedPattern struct {
	text string
	pattern
}

var patterns = &patternCache{entries: map[string]*list.Element{}, recent: list.New()}

func (c *patternCache) get(text string) *pattern {
	c.mu.Lock()
	if element, ok := c.entries[text]; ok {
		c.recent.MoveToFront(element)
		c.mu.Unlock()
		return &element.Value.(*cachedPattern).pattern
	}
	c.mu.Unlock()
	entry := &cachedPattern{text: text, pattern: compilePattern(text)}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[text]; !ok {
		c.entries[text] = c.recent.PushFront(entry)
		for c.recent.Len() > maxCachedPatterns {
			oldest := c.recent.Back()
			c.recent.Remove(oldest)
			delete(c.entries, oldest.Value.(*cachedPattern).text)
		}
	}
	return &entry.pattern
}

// compilePattern parses text and measures its program before compiling it, so that a
// pattern too large to run is never compiled (compiling a.{1000} builds every
// instruction). The caller has checked that text is at most 4 × MaxWhenCost bytes.
func compilePattern(text string) pattern {
	parsed, err := syntax.Parse(text, syntax.Perl)
	if err != nil {
		return pattern{err: fmt.Errorf("error parsing regexp: %w", err)}
	}
	insts := programSize(parsed)
	if insts > 4*MaxWhenCost {
		return pattern{insts: insts}
	}
	re, err := regexp.Compile(text)
	if err != nil {
		return pattern{err: err}
	}
	return pattern{re: re, insts: insts}
}

// programSize estimates the instructions of the program of re, repetitions expanded, as
// regexp/syntax compiles it; it saturates past what any bound here allows.
func programSize(re *syntax.Regexp) uint64 {
	const saturated = math.MaxUint32
	var n uint64
	switch re.Op {
	case syntax.OpLiteral:
		n = uint64(len(re.Rune))
	case syntax.OpCapture, syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		n = 2 + programSize(re.Sub[0])
	case syntax.OpRepeat:
		count := uint64(max(re.Min, re.Max, 1))
		if re.Max == -1 {
			count = uint64(re.Min) + 1
		}
		n = count * (1 + programSize(re.Sub[0]))
	case syntax.OpConcat, syntax.OpAlternate:
		for _, sub := range re.Sub {
			n += 1 + programSize(sub)
		}
	default:
		n = 1
	}
	return min(n, saturated)
}
