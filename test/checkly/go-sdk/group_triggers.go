package main

import (
	"encoding/json"
	"fmt"
	"net/http"

	checkly "github.com/checkly/checkly-go-sdk"
)

// groupTriggers drives a group trigger's whole life as the check trigger's: create, create again
// (the same trigger), call the URL the SDK built itself (<api_url>/check-groups/{id}/trigger/{token},
// no key, no account), read the call back, delete, and the URL answering 404 afterwards.
func groupTriggers(r *run) {
	var group *checkly.Group
	var check *checkly.Check
	if !r.op("group trigger: CreateGroup", func() (s string, err error) {
		group, err = r.sdk.CreateGroup(r.ctx, checkly.Group{Name: unique("go-sdk triggered group"), Activated: true, Concurrency: 1, UseGlobalAlertSettings: true})
		return "", err
	}) || !r.op("group trigger: CreateCheck in the group", func() (s string, err error) {
		c := apiCheck(unique("go-sdk triggered in group"))
		c.GroupID = group.ID
		// Refused by Vigil's SSRF policy at once: the run fails fast, and the URL answers 503.
		c.Request.URL = "http://127.0.0.1:9/cart"
		check, err = r.sdk.CreateCheck(r.ctx, c)
		return "", err
	}) {
		return
	}
	var created *checkly.TriggerGroup
	r.op("CreateTriggerGroup", func() (string, error) {
		t, err := r.sdk.CreateTriggerGroup(r.ctx, group.ID)
		if err != nil {
			return "", err
		}
		if t.Token == "" || t.GroupId != group.ID || t.ID <= 0 || t.CreatedAt == "" {
			return "", fmt.Errorf("trigger %+v", *t)
		}
		created = t
		return t.URL, nil
	})
	if created != nil {
		r.op("CreateTriggerGroup again answers the same trigger", func() (string, error) {
			t, err := r.sdk.CreateTriggerGroup(r.ctx, group.ID)
			if err != nil {
				return "", err
			}
			if t.ID != created.ID || t.Token != created.Token {
				return "", fmt.Errorf("second create %+v, first %+v", *t, *created)
			}
			return "", nil
		})
		r.op("group trigger URL runs the group's checks", func() (string, error) {
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
		r.op("GetTriggerGroup", func() (string, error) {
			t, err := r.sdk.GetTriggerGroup(r.ctx, group.ID)
			if err != nil {
				return "", err
			}
			if t.Token != created.Token || t.ID != created.ID || t.URL != created.URL || t.GroupId != group.ID {
				return "", fmt.Errorf("read %+v, created %+v", *t, *created)
			}
			if t.CalledAt == "" {
				return "", fmt.Errorf("called_at is empty after a call: %+v", *t)
			}
			return "", nil
		})
		r.op("DeleteTriggerGroup", func() (string, error) { return "", r.sdk.DeleteTriggerGroup(r.ctx, group.ID) })
		r.op("GetTriggerGroup after delete is an error", func() (string, error) {
			if _, err := r.sdk.GetTriggerGroup(r.ctx, group.ID); err == nil {
				return "", fmt.Errorf("the deleted trigger still reads back")
			} else {
				return err.Error(), nil
			}
		})
		r.op("group trigger URL after delete is 404", func() (string, error) {
			status, body, err := callTrigger(r, created.URL)
			if err != nil {
				return "", err
			}
			if status != http.StatusNotFound {
				return "", fmt.Errorf("the deleted trigger's URL answered %d %q", status, body)
			}
			return "", nil
		})
	}
	r.op("group trigger: DeleteCheck", func() (string, error) { return "", r.sdk.DeleteCheck(r.ctx, check.ID) })
	r.op("group trigger: DeleteGroup", func() (string, error) { return "", r.sdk.DeleteGroup(r.ctx, group.ID) })
}
