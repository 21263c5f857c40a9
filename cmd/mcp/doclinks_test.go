package main

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// docPages are the pages a reader is sent to, relative to the
// repository's root: the README, ARCHITECTURE.md and docs/*.md.
func docPages(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no pages in docs/: %v", err)
	}
	pages := []string{"README.md", "ARCHITECTURE.md"}
	for _, d := range docs {
		pages = append(pages, filepath.ToSlash(filepath.Join("docs", filepath.Base(d))))
	}
	sort.Strings(pages[2:])
	return pages
}

// pageText is one page, named relative to the repository's root.
func pageText(t *testing.T, page string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(page)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// mdLink is an inline Markdown link: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^()\s]+)\)`)

// inlineCode is a code span, whose text is no link.
var inlineCode = regexp.MustCompile("`[^`]*`")

// pageLinks are the targets of a page's links outside code, each with its
// line.
func pageLinks(text string) map[string]int {
	links := map[string]int{}
	fenced := false
	for n, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range mdLink.FindAllStringSubmatch(inlineCode.ReplaceAllString(line, ""), -1) {
			if _, seen := links[m[1]]; !seen {
				links[m[1]] = n + 1
			}
		}
	}
	return links
}

// headingAnchors are the anchors GitHub gives a page's headings:
// lowercased, punctuation but - and _ dropped, spaces made -, and -1, -2
// after a repeated one.
func headingAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	count := map[string]int{}
	fenced := false
	drop := regexp.MustCompile(`[^\p{L}\p{N}\s_-]`)
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
		}
		title, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if fenced || !ok || !strings.HasPrefix(line, "#") {
			continue
		}
		a := strings.ReplaceAll(drop.ReplaceAllString(strings.ToLower(strings.TrimSpace(title)), ""), " ", "-")
		if c := count[a]; c > 0 {
			anchors[a+"-"+strconv.Itoa(c)] = true
		} else {
			anchors[a] = true
		}
		count[a]++
	}
	return anchors
}

// Every relative link of the README, ARCHITECTURE.md and docs/ leads to a
// file of the repository, and every #anchor to a heading of its page.
func TestDocs_relativeLinks(t *testing.T) {
	checked := 0
	for _, page := range docPages(t) {
		for target, line := range pageLinks(pageText(t, page)) {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			file, anchor, _ := strings.Cut(target, "#")
			dest := page
			if file != "" {
				dest = filepath.ToSlash(filepath.Join(filepath.Dir(page), file))
				if _, err := os.Stat(filepath.Join("..", "..", filepath.FromSlash(dest))); err != nil {
					t.Errorf("%s:%d: %s: no such file", page, line, target)
					continue
				}
			}
			if anchor != "" && (!strings.HasSuffix(dest, ".md") || !headingAnchors(pageText(t, dest))[anchor]) {
				t.Errorf("%s:%d: %s: %s has no heading #%s", page, line, target, dest, anchor)
			}
		}
	}
	if checked < 20 {
		t.Errorf("checked %d relative links, want at least 20: the link pattern may have broken", checked)
	}
}
