package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	checkly "github.com/checkly/checkly-go-sdk"
)

// triggers drives a check trigger's whole life: create, create again (the same trigger), call the
// URL the SDK built (no key), read the call back, delete, and the URL answering 404 afterwards.
func triggers(r *run) {
	var check *checkly.Check
	if !r.op("trigger: CreateCheck", func() (s string, err error) {
		c := apiCheck(unique("go-sdk triggered"))
		// Refused by Vigil's SSRF policy at once: the run fails fast, and the URL answers 503.
		c.Request.URL = "http://127.0.0.1:9/orders"
		check, err = r.sdk.CreateCheck(r.ctx, c)
		return "", err
	}) {
		return
	}
	var created *checkly.TriggerCheck
	r.op("CreateTriggerCheck", func() (string, error) {
		t, err := r.sdk.CreateTriggerCheck(r.ctx, check.ID)
		if err != nil {
			return "", err
		}
		if t.Token == "" || t.CheckId != check.ID || t.ID <= 0 || t.CreatedAt == "" {
			return "", fmt.Errorf("trigger %+v", *t)
		}
		created = t
		return t.URL, nil
	})
	if created == nil {
		return
	}
	r.op("CreateTriggerCheck again answers the same trigger", func() (string, error) {
		t, err := r.sdk.CreateTriggerCheck(r.ctx, check.ID)
		if err != nil {
			return "", err
		}
		if t.ID != created.ID || t.Token != created.Token {
			return "", fmt.Errorf("second create %+v, first %+v", *t, *created)
		}
		return "", nil
	})
	r.op("trigger URL runs the check", func() (string, error) {
		status, body, err := callTrigger(r, created.URL)
		if err != nil {
			return "", err
		}
		var answer struct {
			HasFailures *bool `json:"hasFailures"`
		}
		if err := json.Unmarshal(body, &answer); err != nil || answer.HasFailures == nil {
			return "", fmt.Errorf("answer %d %q", status, body)
		}
		if status != http.StatusServiceUnavailable || !*answer.HasFailures {
			return "", fmt.Errorf("a failing run should answer 503 with hasFailures, got %d %q", status, body)
		}
		return fmt.Sprintf("%d %s", status, body), nil
	})
	r.op("GetTriggerCheck", func() (string, error) {
		t, err := r.sdk.GetTriggerCheck(r.ctx, check.ID)
		if err != nil {
			return "", err
		}
		if t.Token != created.Token || t.ID != created.ID || t.URL != created.URL {
			return "", fmt.Errorf("read %+v, created %+v", *t, *created)
		}
		if t.CalledAt == "" {
			return "", fmt.Errorf("called_at is empty after a call: %+v", *t)
		}
		return "", nil
	})
	r.op("DeleteTriggerCheck", func() (string, error) { return "", r.sdk.DeleteTriggerCheck(r.ctx, check.ID) })
	r.op("GetTriggerCheck after delete is an error", func() (string, error) {
		if _, err := r.sdk.GetTriggerCheck(r.ctx, check.ID); err == nil {
			return "", fmt.Errorf("the deleted trigger still reads back")
		} else {
			return err.Error(), nil
		}
	})
	r.op("trigger URL after delete is 404", func() (string, error) {
		status, body, err := callTrigger(r, created.URL)
		if err != nil {
			return "", err
		}
		if status != http.StatusNotFound {
			return "", fmt.Errorf("the deleted trigger's URL answered %d %q", status, body)
		}
		return "", nil
	})
	r.op("trigger: DeleteCheck", func() (string, error) { return "", r.sdk.DeleteCheck(r.ctx, check.ID) })
	groupTriggers(r)
}

// callTrigger GETs a trigger URL as a CI job would: no key, no account header.
func callTrigger(r *run, url string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(r.ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}
