package main

import "math"

// Metrics are the usual ranking measures, averaged over queries. A query's
// gold groups are the tools it needs, one group per tool: any member of a
// group satisfies it (several servers may offer the same tool).
type Metrics struct {
	Queries  int     `json:"queries"`
	Hit1     float64 `json:"hit@1"`
	Hit5     float64 `json:"hit@5"`
	Hit10    float64 `json:"hit@10"`
	Recall5  float64 `json:"recall@5"`
	Recall10 float64 `json:"recall@10"`
	MRR      float64 `json:"mrr"`
	NDCG10   float64 `json:"ndcg@10"`
}

// judged is one query's ranking, reduced to which gold group (if any) each
// ranked tool belongs to: -1 for none.
type judged []int

func judge(ranked []string, groups [][]string) judged {
	groupOf := map[string]int{}
	for g, ids := range groups {
		for _, id := range ids {
			if _, ok := groupOf[id]; !ok {
				groupOf[id] = g
			}
		}
	}
	j := make(judged, len(ranked))
	for i, id := range ranked {
		g, ok := groupOf[id]
		if !ok {
			g = -1
		}
		j[i] = g
	}
	return j
}

// hit reports whether any gold tool is in the first k.
func (j judged) hit(k int) float64 {
	for i := 0; i < k && i < len(j); i++ {
		if j[i] >= 0 {
			return 1
		}
	}
	return 0
}

// recall is the share of gold groups satisfied in the first k.
func (j judged) recall(k, groups int) float64 {
	if groups == 0 {
		return 0
	}
	seen := map[int]bool{}
	for i := 0; i < k && i < len(j); i++ {
		if j[i] >= 0 {
			seen[j[i]] = true
		}
	}
	return float64(len(seen)) / float64(groups)
}

// rr is the reciprocal rank of the first gold tool.
func (j judged) rr() float64 {
	for i, g := range j {
		if g >= 0 {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// ndcg is binary nDCG at k where a tool gains only if it satisfies a group
// no earlier tool satisfied; the ideal ranking satisfies min(groups, k)
// groups in the first places.
func (j judged) ndcg(k, groups int) float64 {
	seen := map[int]bool{}
	var dcg float64
	for i := 0; i < k && i < len(j); i++ {
		if g := j[i]; g >= 0 && !seen[g] {
			seen[g] = true
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	var ideal float64
	for i := 0; i < k && i < groups; i++ {
		ideal += 1 / math.Log2(float64(i+2))
	}
	if ideal == 0 {
		return 0
	}
	return dcg / ideal
}

// accumulate adds one query's measures to m; finish averages them.
func (m *Metrics) accumulate(j judged, groups int) {
	m.Queries++
	m.Hit1 += j.hit(1)
	m.Hit5 += j.hit(5)
	m.Hit10 += j.hit(10)
	m.Recall5 += j.recall(5, groups)
	m.Recall10 += j.recall(10, groups)
	m.MRR += j.rr()
	m.NDCG10 += j.ndcg(10, groups)
}

func (m *Metrics) finish() {
	if m.Queries == 0 {
		return
	}
	n := float64(m.Queries)
	for _, p := range []*float64{&m.Hit1, &m.Hit5, &m.Hit10, &m.Recall5, &m.Recall10, &m.MRR, &m.NDCG10} {
		*p = math.Round(*p/n*1000) / 1000
	}
}
