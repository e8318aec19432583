// Command checkly-go-sdk-driver runs Checkly's real Go SDK (the client the Checkly Terraform
// provider is built on) against a Vigil's /checkly dialect and prints one JSON line per operation:
// {"scenario","op","ok","error","detail"}. test/checkly/go-sdk.test.ts builds it with
// scripts/go-sdk.sh and asserts every line.
//
// Usage: checkly-go-sdk-driver -url http://host:port/checkly -key KEY -account ID [scenario ...]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	checkly "github.com/checkly/checkly-go-sdk"
	"github.com/google/go-cmp/cmp"
)

type line struct {
	Scenario string `json:"scenario"`
	Op       string `json:"op"`
	OK       bool   `json:"ok"`
	Error    string `json:"error,omitempty"`
	Detail   string `json:"detail,omitempty"`
}

// run holds what every scenario needs: the SDK client, plain HTTP for the list routes the SDK
// has no method for, and the output.
type run struct {
	ctx      context.Context
	sdk      checkly.Client
	url      string
	key      string
	account  string
	scenario string
	out      *json.Encoder
}

// op runs one operation and prints its line; it returns whether it passed, so a scenario can stop
// when what it needs next was not created.
func (r *run) op(name string, fn func() (string, error)) bool {
	detail, err := fn()
	l := line{Scenario: r.scenario, Op: name, OK: err == nil, Detail: detail}
	if err != nil {
		l.Error = err.Error()
	}
	_ = r.out.Encode(l)
	return err == nil
}

// unsupported runs an SDK call that Vigil must refuse with its JSON 404 saying it does not
// support the family: the operation passes when the SDK surfaces exactly that error.
func (r *run) unsupported(name string, fn func() error) bool {
	return r.op(name, func() (string, error) {
		err := fn()
		if err == nil {
			return "", fmt.Errorf("the SDK call succeeded; Vigil should answer 404 unsupported")
		}
		if !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), "does not support") {
			return "", fmt.Errorf("expected Vigil's 404 that says unsupported, the SDK said: %v", err)
		}
		return "refused: " + err.Error(), nil
	})
}

// noDiff compares what was sent with what reads back, as Terraform's second plan would.
func noDiff(want, got any, opts ...cmp.Option) (string, error) {
	if d := cmp.Diff(want, got, opts...); d != "" {
		return "", fmt.Errorf("read back differs from what was sent (-sent +read):\n%s", d)
	}
	return "reads back as sent", nil
}

// list GETs a list route the SDK has no method for, with the SDK's own headers, and reports
// whether the given id is in it.
func (r *run) list(path, field string, want any) (string, error) {
	req, err := http.NewRequestWithContext(r.ctx, http.MethodGet, r.url+path, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+r.key)
	req.Header.Set("X-Checkly-Account", r.account)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("unexpected response status %d: %q", resp.StatusCode, body)
	}
	// Numbers as written: a numeric id must not round-trip through float64.
	decode := func(v any) error {
		d := json.NewDecoder(bytes.NewReader(body))
		d.UseNumber()
		return d.Decode(v)
	}
	var rows []map[string]any
	if err := decode(&rows); err != nil {
		var paged struct {
			Entries []map[string]any `json:"entries"`
		}
		if err2 := decode(&paged); err2 != nil {
			return "", fmt.Errorf("decoding %s: %v", path, err)
		}
		rows = paged.Entries
	}
	for _, row := range rows {
		if fmt.Sprint(row[field]) == fmt.Sprint(want) {
			return fmt.Sprintf("%d rows, %v among them", len(rows), want), nil
		}
	}
	return "", fmt.Errorf("%v not in %s (%d rows)", want, path, len(rows))
}

var scenarios = []struct {
	name string
	fn   func(*run)
}{
	{"runtimes", runtimes},
	{"variables", variables},
	{"private-locations", privateLocations},
	{"channels", channels},
	{"groups", groups},
	{"checks", checks},
	{"monitors", monitors},
	{"windows", windows},
	{"results", results},
	{"triggers", triggers},
	{"unsupported", unsupportedFamilies},
}

func main() {
	url := flag.String("url", "", "Vigil's Checkly API base URL, e.g. http://127.0.0.1:3000/checkly")
	key := flag.String("key", "", "a Vigil API key")
	account := flag.String("account", "", "the Vigil account id")
	flag.Parse()
	if *url == "" || *key == "" || *account == "" {
		fmt.Fprintln(os.Stderr, "usage: checkly-go-sdk-driver -url URL -key KEY -account ID [scenario ...]")
		os.Exit(2)
	}
	wanted := map[string]bool{}
	for _, name := range flag.Args() {
		wanted[name] = true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sdk := checkly.NewClient(*url, *key, nil, nil)
	sdk.SetAccountId(*account)
	r := &run{ctx: ctx, sdk: sdk, url: *url, key: *key, account: *account, out: json.NewEncoder(os.Stdout)}
	known := map[string]bool{}
	for _, s := range scenarios {
		known[s.name] = true
		if len(wanted) == 0 || wanted[s.name] || wanted["all"] {
			r.scenario = s.name
			s.fn(r)
		}
	}
	for name := range wanted {
		if !known[name] && name != "all" {
			fmt.Fprintf(os.Stderr, "unknown scenario %q\n", name)
			os.Exit(2)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func unique(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano()%1_000_000_000)
}
