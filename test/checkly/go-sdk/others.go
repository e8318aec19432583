package main

import (
	"flag"
	"fmt"

	checkly "github.com/checkly/checkly-go-sdk"
)

var resultsCheck = flag.String("results-check", "", "a check with 5 results, the last 2 failing (seeded by the test)")

func results(r *run) {
	if *resultsCheck == "" {
		r.op("GetCheckResults", func() (string, error) { return "", fmt.Errorf("no -results-check given") })
		return
	}
	id := *resultsCheck
	var first checkly.CheckResult
	pages := []int{2, 2, 1, 0}
	for i, want := range pages {
		page := int64(i + 1)
		r.op(fmt.Sprintf("GetCheckResults page %d", page), func() (string, error) {
			got, err := r.sdk.GetCheckResults(r.ctx, id, &checkly.CheckResultsFilter{Page: page, Limit: 2})
			if err != nil {
				return "", err
			}
			if len(got) != want {
				return "", fmt.Errorf("%d results, want %d", len(got), want)
			}
			for _, res := range got {
				if res.CheckID != id {
					return "", fmt.Errorf("result %s names check %q", res.ID, res.CheckID)
				}
			}
			if page == 1 {
				first = got[0]
			}
			return fmt.Sprintf("%d results", len(got)), nil
		})
	}
	r.op("GetCheckResults hasFailures", func() (string, error) {
		got, err := r.sdk.GetCheckResults(r.ctx, id, &checkly.CheckResultsFilter{HasFailures: true, Limit: 10})
		if err != nil {
			return "", err
		}
		for _, res := range got {
			if !res.HasFailures {
				return "", fmt.Errorf("result %s has no failures", res.ID)
			}
		}
		if len(got) != 2 {
			return "", fmt.Errorf("%d failing results, want 2", len(got))
		}
		return "2 failing results", nil
	})
	r.op("GetCheckResult", func() (string, error) {
		if first.ID == "" {
			return "", fmt.Errorf("no result listed to read")
		}
		got, err := r.sdk.GetCheckResult(r.ctx, id, first.ID)
		if err != nil {
			return "", err
		}
		if got.ID != first.ID || got.CheckID != id || got.RunLocation != first.RunLocation || got.ResponseTime != first.ResponseTime {
			return "", fmt.Errorf("reads %+v, listed %+v", *got, first)
		}
		return "reads as listed", nil
	})
}

func unsupportedFamilies(r *run) {
	r.unsupported("CreateSnippet", func() error {
		_, err := r.sdk.CreateSnippet(r.ctx, checkly.Snippet{Name: "s", Script: "1"})
		return err
	})
	r.unsupported("GetSnippet", func() error { _, err := r.sdk.GetSnippet(r.ctx, 1); return err })
	r.unsupported("CreateDashboard", func() error {
		_, err := r.sdk.CreateDashboard(r.ctx, checkly.Dashboard{CustomUrl: "x"})
		return err
	})
	r.unsupported("GetDashboard", func() error { _, err := r.sdk.GetDashboard(r.ctx, "1"); return err })
	r.unsupported("CreateClientCertificate", func() error {
		_, err := r.sdk.CreateClientCertificate(r.ctx, checkly.ClientCertificate{Host: "*.example.com"})
		return err
	})
	r.unsupported("GetStaticIPs", func() error { _, err := r.sdk.GetStaticIPs(r.ctx); return err })
	// Vigil's status pages list checks, not Checkly's services: the dialect reads them, never writes.
	r.unsupported("CreateStatusPage", func() error {
		_, err := r.sdk.CreateStatusPage(r.ctx, checkly.StatusPage{Name: "Status", URL: unique("go-sdk-status"), Cards: []checkly.StatusPageCard{{Name: "API"}}})
		return err
	})
	r.unsupported("UpdateStatusPage", func() error {
		_, err := r.sdk.UpdateStatusPage(r.ctx, "00000000-0000-4000-8000-000000000000", checkly.StatusPage{Name: "Status"})
		return err
	})
	r.unsupported("DeleteStatusPage", func() error {
		return r.sdk.DeleteStatusPage(r.ctx, "00000000-0000-4000-8000-000000000000")
	})
	r.unsupported("CreateStatusPageService", func() error {
		_, err := r.sdk.CreateStatusPageService(r.ctx, checkly.StatusPageService{Name: "API"})
		return err
	})
}
