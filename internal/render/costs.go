package render

import "strings"

// What builders allocate per byte of the text they make and per node of the values they
// walk, measured with runtime.MemStats on lists of numbers, maps of strings, nested maps
// and long multi-line strings, and rounded up: sigs.k8s.io/yaml's toYaml goes through
// JSON and back through YAML nodes, 1,400 bytes a number in a list.
const (
	fmtPerByte, fmtPerNode   = 4, 128
	jsonPerByte, jsonPerNode = 8, 64
	yamlPerByte, yamlPerNode = 24, 2048
	// escapePerByte is fmt's text, escaped for HTML, JavaScript or a URL query.
	escapePerByte = 8
	// parsing a string: YAML takes up to 46 bytes a byte (a list of numbers), JSON 25.
	parseYAMLPerByte, parseJSONPerByte = 64, 32
	// copyPerNode is deepCopy (copystructure) and merge (mergo), 110 to 320 bytes a node.
	copyPerNode = 512
	// regexpPerByte is compiling a pattern.
	regexpPerByte = 64
	// stringPerByte is a function of strings that makes a string: case mappings write up
	// to three bytes a byte (an invalid byte becomes U+FFFD), encoders 1.6, and the
	// arguments are copied to bytes first.
	stringPerByte = 4
	// listElement is an element of a list copied into a new one: the interface, and the
	// growth of append.
	listElement = 48
	// concatElement is an element concat appends one by one, to a list that grows by a
	// quarter when large: 5 copies of it in all.
	concatElement = 128
	// mapEntry is an entry of a new map, with its share of the buckets.
	mapEntry = 96
)

// builderCosts are the builders, by name, with their costs.
var builderCosts = func() map[string]cost {
	costs := map[string]cost{
		"indent":                     indentCost(0),
		"nindent":                    indentCost(1),
		"repeat":                     func(c call) int { return times(c.int(0), len(c.str(1))) },
		"replace":                    replaceCost,
		"wrapWith":                   wrapWithCost,
		"printf":                     formatCost,
		"join":                       joinCost,
		"until":                      func(c call) int { return 8 * boundedSequence(0, c.int(0), 1) },
		"untilStep":                  func(c call) int { return 8 * boundedSequence(c.int(0), c.int(1), c.int(2)) },
		"seq":                        seqCost,
		"splitList":                  splitCost(16),
		"split":                      splitCost(mapEntry),
		"splitn":                     splitnCost,
		"regexFindAll":               regexpPiecesCost,
		"mustRegexFindAll":           regexpPiecesCost,
		"regexSplit":                 regexpPiecesCost,
		"mustRegexSplit":             regexpPiecesCost,
		"regexReplaceAll":            regexpReplaceCost(2),
		"mustRegexReplaceAll":        regexpReplaceCost(2),
		"regexReplaceAllLiteral":     regexpReplaceCost(1),
		"mustRegexReplaceAllLiteral": regexpReplaceCost(1),
		"regexMatch":                 regexpCost,
		"mustRegexMatch":             regexpCost,
		"regexFind":                  regexpCost,
		"mustRegexFind":              regexpCost,
		"list":                       func(c call) int { return times(c.count(), 16) },
		"tuple":                      func(c call) int { return times(c.count(), 16) },
		"dict":                       func(c call) int { return times(c.count(), mapEntry) },
		"pluck":                      func(c call) int { return times(c.count(), 16) },
	}
	add := func(cost cost, names ...string) {
		for _, name := range names {
			costs[name] = cost
		}
	}
	add(textCost(fmtPerByte, fmtPerNode), "print", "println", "cat", "quote", "squote", "toString", "toStrings", "sortAlpha", "urlJoin")
	add(textCost(escapePerByte, fmtPerNode), "html", "js", "urlquery")
	add(textCost(jsonPerByte, jsonPerNode), "toJson", "mustToJson", "toRawJson", "mustToRawJson", "toPrettyJson", "mustToPrettyJson")
	add(textCost(yamlPerByte, yamlPerNode), "toYaml")
	add(textCost(0, copyPerNode), "deepCopy", "mustDeepCopy", "merge", "mustMerge", "mergeOverwrite", "mustMergeOverwrite")
	add(stringCost(parseYAMLPerByte), "fromYaml", "fromYamlArray")
	add(stringCost(parseJSONPerByte), "fromJson", "fromJsonArray", "mustFromJson")
	add(stringCost(stringPerByte),
		"upper", "lower", "title", "untitle", "swapcase", "snakecase", "camelcase", "kebabcase", "nospace", "initials",
		"wrap", "abbrev", "abbrevboth", "b64enc", "b64dec", "b32enc", "b32dec", "sha1sum", "sha256sum", "sha512sum", "adler32sum",
		"regexQuoteMeta", "base", "dir", "clean", "osBase", "osDir", "osClean", "urlParse", "semver", "semverCompare",
		"buildCustomCert", "decryptAES", "derivePassword")
	add(func(c call) int { return times(c.lengths()+1, listElement) },
		"append", "push", "mustAppend", "mustPush", "prepend", "mustPrepend", "rest", "mustRest", "initial", "mustInitial",
		"reverse", "mustReverse", "compact", "mustCompact", "uniq", "mustUniq", "without", "mustWithout", "chunk", "mustChunk", "keys", "values")
	add(func(c call) int { return times(c.lengths(), mapEntry) }, "pick", "omit")
	add(func(c call) int { return times(c.lengths(), concatElement) }, "concat")
	return costs
}()

// textCost is a function that writes its arguments out: so many bytes for each byte of
// their text and for each node.
func textCost(perByte, perNode int) cost {
	return func(c call) int {
		e := c.extent(0)
		return times(perByte, e.bytes) + times(perNode, e.nodes)
	}
}

// stringCost is a function that makes a string, or a value, from its string arguments.
func stringCost(perByte int) cost {
	return func(c call) int {
		n := 0
		for i := range c.args {
			n += len(c.str(i))
		}
		return times(perByte, n) + 64
	}
}

// indentCost is indent, or nindent (one more copy): the padding, the text with the
// padding after every line break, and that again with the padding before it.
func indentCost(copies int) cost {
	return func(c call) int {
		spaces, text := max(c.int(0), 0), c.str(1)
		indented := len(text) + times(strings.Count(text, "\n")+1, spaces) + 1
		return 2*spaces + times(2+copies, indented)
	}
}

// replaceCost is the result of replace, which strings.Replace allocates at once.
func replaceCost(c call) int {
	old, replacement, src := c.str(0), c.str(1), c.str(2)
	return len(src) + times(strings.Count(src, old), len(replacement)-len(old))
}

// wrapWithCost is wrapWith, which may put the separator after every byte, in a buffer
// that grows by doubling.
func wrapWithCost(c call) int {
	width, separator, text := max(c.int(0), 1), c.str(1), c.str(2)
	return 3 * (len(text) + times(len(text)/width+1, len(separator)))
}

// joinCost is join: every element written out, and the separator between them.
func joinCost(c call) int {
	e := c.extent(1)
	return times(fmtPerByte, e.bytes) + times(fmtPerNode, e.nodes) + times(c.length(1), len(c.str(0)))
}

// formatCost is printf: the format, every width and precision it names or takes from an
// argument (%*d), and every argument written out, all of them at every verb when the
// format picks arguments by index (%[1]s%[1]s).
func formatCost(c call) int {
	format := c.str(0)
	widths := numbersIn(format)
	if stars := strings.Count(format, "*"); stars > 0 {
		largest := 0
		for i := range c.length(1) {
			largest = max(largest, abs(c.elementInt(i)))
		}
		widths += times(stars, largest)
	}
	e := c.extent(1)
	if strings.Contains(format, "[") {
		verbs := strings.Count(format, "%")
		e = extent{bytes: times(verbs, e.bytes), nodes: times(verbs, e.nodes)}
	}
	return times(fmtPerByte, len(format)+widths+e.bytes) + times(fmtPerNode, e.nodes)
}

// numbersIn adds up the numbers written in s, each at most saturated.
func numbersIn(s string) int {
	total, n := 0, 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] >= '0' && s[i] <= '9' {
			n = min(n*10+int(s[i]-'0'), saturated)
			continue
		}
		total, n = min(total+n, saturated), 0
	}
	return total
}

func abs(n int) int { return max(n, -n) }

func seqCost(c call) int {
	start, stop, step := 1, 0, 1
	switch c.length(0) {
	case 1:
		stop = c.elementInt(0)
	case 2:
		start, stop = c.elementInt(0), c.elementInt(1)
	case 3:
		start, step, stop = c.elementInt(0), c.elementInt(1), c.elementInt(2)
	}
	return 24 * boundedSequence(start, stop, step)
}

// boundedSequence is how long a sequence is, or just too long: until, untilStep and seq
// refuse longer ones themselves, saying so.
func boundedSequence(start, stop, step int) int {
	return min(sequenceLength(start, stop, step), maxSequenceLength+1)
}

// splitCost is splitList or split "sep" text: a piece for every separator in the text.
func splitCost(perPiece int) cost {
	return func(c call) int {
		return len(c.str(1)) + times(strings.Count(c.str(1), c.str(0))+1, perPiece)
	}
}

// splitnCost is splitn "sep" n text: at most n pieces.
func splitnCost(c call) int {
	pieces := strings.Count(c.str(2), c.str(0)) + 1
	if n := c.int(1); n >= 0 {
		pieces = min(pieces, n)
	}
	return len(c.str(2)) + times(pieces, mapEntry)
}

// regexpCost is compiling the pattern, the first argument of every regex function.
func regexpCost(c call) int { return times(regexpPerByte, len(c.str(0))) + 1024 }

// regexpPiecesCost is regexFindAll and regexSplit: up to a piece for every byte of the
// text (an empty pattern matches between every two), or n pieces.
func regexpPiecesCost(c call) int {
	pieces := len(c.str(1)) + 1
	if n := c.int(2); n >= 0 {
		pieces = min(pieces, n)
	}
	return regexpCost(c) + times(pieces, 64)
}

// regexpReplaceCost is regexReplaceAll (references: 2) or regexReplaceAllLiteral (1):
// the replacement for up to every byte of the text, with its references to the matches,
// which add up to the text at most, in a buffer that grows by doubling.
func regexpReplaceCost(references int) cost {
	return func(c call) int {
		text, replacement := c.str(1), c.str(2)
		return regexpCost(c) + 2*(len(text)+times(references*(len(text)+1), len(replacement)))
	}
}
