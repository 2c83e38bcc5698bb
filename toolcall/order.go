package toolcall

import "slices"

// inOrder matches calls keeping their order, the most credit a common
// subsequence of the two lists can have (a full fit worth two, a fit by
// name one; minLevel fullFit counts full fits only), and of equal credit
// the most full fits. The calls of one assistant message ran in
// parallel, so their order among themselves is not the conversation's:
// such a message matches, in any order, a run of the expected calls. The
// matching's act is act with each message's calls put in the order of
// the expected calls they matched, those matched with none after them.
func inOrder(exp, act []call, minLevel int) matching {
	m, _ := inOrderSteps(exp, act, minLevel)
	return m
}

// inOrderSteps is inOrder, and the number of expected calls it added to
// a run of parallel calls while finding the best: the work that grows
// fastest with the calls. A run only gains from the expected calls of
// its tools, and once the most it could gain against all the expected
// calls cannot beat the best found, no later end can: the search stops
// there, so that it looks at a few expected calls past each start, not
// at all of them.
func inOrderSteps(exp, act []call, minLevel int) (matching, int) {
	steps := 0
	n, k := len(exp), len(act)
	// A full fit weighs two units of t and a fit by name one, plus one
	// for a full fit: t exceeds any number of full fits, so the most
	// credit wins and, of equal credit, the most full fits.
	t := n + k + 1
	weigh := func(full, byName int) int { return full*(2*t+1) + byName*t }
	groups := groupsOf(act)
	m := len(groups)
	// best[g][i] is the most weight exp[i:] and the groups g... can have.
	best := make([][]int, m+1)
	for g := range best {
		best[g] = make([]int, n+1)
	}
	runs := make([]*run, m)
	var cands []int
	for g := m - 1; g >= 0; g-- {
		calls := act[groups[g][0]:groups[g][1]]
		r := &run{calls: calls, minLevel: minLevel}
		if len(calls) > 1 {
			r = newRun(exp, calls, minLevel)
		}
		runs[g] = r
		// The most the run can be worth: matched against every
		// expected call of its tools.
		var bound int
		if len(calls) > 1 {
			r.reset()
			for _, p := range r.relevant {
				r.add(p)
			}
			bound = weigh(r.full, r.byName)
		}
		for i := n; i >= 0; i-- {
			b := best[g+1][i]
			if i < n {
				b = max(b, best[g][i+1]) // exp[i] matched with nothing
			}
			if len(r.calls) == 1 {
				// One call: it matches exp[i] or, as above, a later one.
				if i < n {
					if f := r.fitOf(exp[i]); f > 0 {
						b = max(b, weigh(f/fullFit, f%fullFit)+best[g+1][i+1])
					}
				}
				best[g][i] = b
				continue
			}
			r.reset()
			cands = r.ends(i, cands[:0])
			for _, p := range cands {
				if bound+best[g+1][p+1] <= b {
					break // every later end is worth at most this
				}
				r.add(p)
				steps++
				b = max(b, weigh(r.full, r.byName)+best[g+1][p+1])
			}
			best[g][i] = b
		}
	}
	// Walk the best choices: each group's run of expected calls, matched
	// free of order.
	out := matching{exp: exp, act: make([]call, 0, k), of: make([]int, n), level: make([]int, n)}
	for i := range out.of {
		out.of[i] = -1
	}
	i := 0
	for g := range m {
		r := runs[g]
		for i < n && best[g][i] == best[g][i+1] && best[g][i] != best[g+1][i] {
			i++ // exp[i] matched with nothing
		}
		end := i
		switch {
		case best[g][i] == best[g+1][i]: // the group matched with nothing
		case len(r.calls) == 1: // its one call matched with exp[i]
			end = i + 1
			out.of[i], out.level[i] = len(out.act), r.fitOf(exp[i])
			out.act = append(out.act, r.calls[0])
			i = end
			continue
		default:
			r.reset()
			for end = i + 1; end <= n; end++ {
				r.add(end - 1)
				if weigh(r.full, r.byName)+best[g+1][end] == best[g][i] {
					break
				}
			}
		}
		out.act = append(out.act, r.place(exp, i, end, &out)...)
		i = end
	}
	return out, steps
}

// groupsOf returns the runs of act made by one assistant message, as
// [start, end) index pairs.
func groupsOf(act []call) [][2]int {
	var out [][2]int
	for start := 0; start < len(act); {
		end := start + 1
		for end < len(act) && act[end].group == act[start].group {
			end++
		}
		out = append(out, [2]int{start, end})
		start = end
	}
	return out
}

// run counts, for one assistant message's calls, how many of a growing
// run of expected calls they match free of order: in full (full) and by
// tool alone (byName). Calls of one tool with equal arguments form a
// class: an expected call with arguments fits one class in full, one
// that accepts any fits every call of its tool with arguments that are a
// JSON object, so the counts give the most full fits and then the most
// fits by name.
type run struct {
	calls    []call
	minLevel int
	// Of each expected call: the index of its tool among the calls' tools
	// (-1 for none), the class it fits in full (-1 for none) and whether
	// it accepts any arguments.
	tool, class []int
	wild        []bool
	// relevant are the indices of the expected calls of the calls'
	// tools, in order: the only ones that add to the run. Of them, per
	// tool (byTool), per class (byClass) and per tool those that accept
	// any arguments (wildOf).
	relevant                []int
	byTool, byClass, wildOf [][]int
	// Of the calls: per tool, how many and how many with good arguments;
	// per class, how many.
	perTool, goodPerTool, perClass []int
	// Of the expected calls added: per tool, how many, how many that
	// accept any, how many matched in their class; per class, how many.
	eTool, eWild, eClassed, eClass []int
	fullOf, nameOf                 []int // per tool, the fits counted
	full, byName                   int
}

func newRun(exp []call, calls []call, minLevel int) *run {
	r := &run{calls: calls, minLevel: minLevel,
		tool: make([]int, len(exp)), class: make([]int, len(exp)), wild: make([]bool, len(exp))}
	var tools []string
	toolOf := make([]int, len(calls))
	classOf := make([]int, len(calls))
	nClass := 0
	for j, a := range calls {
		toolOf[j] = slices.Index(tools, a.name)
		if toolOf[j] < 0 {
			toolOf[j] = len(tools)
			tools = append(tools, a.name)
			r.perTool, r.goodPerTool = append(r.perTool, 0), append(r.goodPerTool, 0)
		}
		r.perTool[toolOf[j]]++
		classOf[j] = -1
		if a.bad != "" {
			continue
		}
		r.goodPerTool[toolOf[j]]++
		for q := range j {
			if classOf[q] >= 0 && same(calls[q], a) {
				classOf[j] = classOf[q]
				break
			}
		}
		if classOf[j] < 0 {
			classOf[j] = nClass
			nClass++
			r.perClass = append(r.perClass, 0)
		}
		r.perClass[classOf[j]]++
	}
	for i, e := range exp {
		r.tool[i], r.class[i] = slices.Index(tools, e.name), -1
		r.wild[i] = e.args == nil && e.text == ""
		if r.tool[i] < 0 || r.wild[i] {
			continue
		}
		for j, a := range calls {
			if classOf[j] >= 0 && fit(e, a) == fullFit {
				r.class[i] = classOf[j]
				break
			}
		}
	}
	nt := len(tools)
	r.byTool, r.wildOf, r.byClass = make([][]int, nt), make([][]int, nt), make([][]int, nClass)
	for i, tl := range r.tool {
		if tl < 0 {
			continue
		}
		r.relevant = append(r.relevant, i)
		r.byTool[tl] = append(r.byTool[tl], i)
		if r.wild[i] {
			r.wildOf[tl] = append(r.wildOf[tl], i)
		}
		if c := r.class[i]; c >= 0 {
			r.byClass[c] = append(r.byClass[c], i)
		}
	}
	r.eTool, r.eWild, r.eClassed = make([]int, nt), make([]int, nt), make([]int, nt)
	r.fullOf, r.nameOf = make([]int, nt), make([]int, nt)
	r.eClass = make([]int, nClass)
	return r
}

// fitOf is how a run of one call fits e at the run's level: fullFit,
// nameFit or noFit.
func (r *run) fitOf(e call) int {
	if f := fit(e, r.calls[0]); f >= r.minLevel {
		return f
	}
	return noFit
}

// ends appends to buf, in order, the expected calls from i on that can
// add to the run's worth when the run grows from i to take them in: of
// each tool the first as many as its calls (fits by name), of each class
// the first as many as its calls, of each tool the first that accept any
// arguments as many as its calls with good ones (fits in full). Any
// other leaves the counts that make the worth where they were, so an end
// after it is worth no more than the end before it, and is left out.
func (r *run) ends(i int, buf []int) []int {
	first := func(list []int, n int) {
		from, _ := slices.BinarySearch(list, i)
		buf = append(buf, list[from:min(from+n, len(list))]...)
	}
	for tl, list := range r.byTool {
		first(list, r.perTool[tl])
		first(r.wildOf[tl], r.goodPerTool[tl])
	}
	for c, list := range r.byClass {
		first(list, r.perClass[c])
	}
	slices.Sort(buf)
	return slices.Compact(buf)
}

func (r *run) reset() {
	clear(r.eTool)
	clear(r.eWild)
	clear(r.eClassed)
	clear(r.eClass)
	clear(r.fullOf)
	clear(r.nameOf)
	r.full, r.byName = 0, 0
}

// add adds expected call i to the run.
func (r *run) add(i int) {
	tl := r.tool[i]
	if tl < 0 {
		return
	}
	r.eTool[tl]++
	switch c := r.class[i]; {
	case r.wild[i]:
		r.eWild[tl]++
	case c >= 0:
		if r.eClass[c] < r.perClass[c] {
			r.eClassed[tl]++
		}
		r.eClass[c]++
	}
	full := r.eClassed[tl] + min(r.eWild[tl], r.goodPerTool[tl]-r.eClassed[tl])
	name := 0
	if r.minLevel <= nameFit {
		name = min(r.eTool[tl]-full, r.perTool[tl]-full)
	}
	r.full += full - r.fullOf[tl]
	r.byName += name - r.nameOf[tl]
	r.fullOf[tl], r.nameOf[tl] = full, name
}

// place matches the run's calls with exp[i:end] free of order, records
// the pairs in out (indices into out.act as it will be once the calls
// returned are appended) and returns the calls in the order of the
// expected calls they matched, those matched with none after.
func (r *run) place(exp []call, i, end int, out *matching) []call {
	sub := anyOrder(exp[i:end], r.calls, r.minLevel)
	base := len(out.act)
	placed := make([]call, 0, len(r.calls))
	used := make([]bool, len(r.calls))
	for x, j := range sub.of {
		if j < 0 {
			continue
		}
		out.of[i+x], out.level[i+x] = base+len(placed), sub.level[x]
		placed = append(placed, r.calls[j])
		used[j] = true
	}
	for j, a := range r.calls {
		if !used[j] {
			placed = append(placed, a)
		}
	}
	return placed
}
