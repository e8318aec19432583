package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"

	checkly "github.com/checkly/checkly-go-sdk"
)

// bundle is a Playwright project as the CLI packs one: a gzip tar of its files.
func bundle() ([]byte, error) {
	files := map[string]string{
		"playwright.config.ts": "export default { testDir: 'tests' };\n",
		"tests/home.spec.ts":   "import { test } from '@playwright/test';\ntest('home', async ({ page }) => {});\n",
	}
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	tw := tar.NewWriter(zw)
	for _, name := range []string{"playwright.config.ts", "tests/home.spec.ts"} {
		body := files[name]
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			return nil, err
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// playwrightSuite: a Playwright check suite as the provider makes one, its project uploaded
// through the SDK's code-bundle storage, then the check naming the bundle.
func playwrightSuite(r *run) {
	var key string
	if !r.op("PLAYWRIGHT: UploadCodeBundle", func() (string, error) {
		data, err := bundle()
		if err != nil {
			return "", err
		}
		uploaded, err := r.sdk.UploadCodeBundle(r.ctx, bytes.NewReader(data), int64(len(data)), checkly.UploadCodeBundleOptions{})
		if err != nil {
			return "", err
		}
		if uploaded.Key == "" {
			return "", fmt.Errorf("no bundle key in %+v", *uploaded)
		}
		key = uploaded.Key
		return "", nil
	}) {
		return
	}
	check := checkly.PlaywrightCheck{
		Name:             unique("go-sdk playwright"),
		Frequency:        10,
		Activated:        true,
		Locations:        []string{"eu-west-1"},
		PrivateLocations: &[]string{},
		Tags:             []string{"go-sdk"},
		// The account's alert settings (Vigil's null); the other families send their own.
		UseGlobalAlertSettings: true,
		CodeBundlePath:         key,
		Browsers:               []string{"chromium"},
		TestCommand:            ptr("npx playwright test --config playwright.config.ts"),
	}
	var id string
	r.op("PLAYWRIGHT: CreatePlaywrightCheck", func() (string, error) {
		created, err := r.sdk.CreatePlaywrightCheck(r.ctx, check)
		if err != nil {
			return "", err
		}
		id = created.ID
		return noDiff(check, *created, playwrightServerFields)
	})
	if id == "" {
		return
	}
	r.op("PLAYWRIGHT: GetPlaywrightCheck", func() (string, error) {
		got, err := r.sdk.GetPlaywrightCheck(r.ctx, id)
		if err != nil {
			return "", err
		}
		return noDiff(check, *got, playwrightServerFields)
	})
	check.Frequency = 30
	r.op("PLAYWRIGHT: UpdatePlaywrightCheck", func() (string, error) {
		updated, err := r.sdk.UpdatePlaywrightCheck(r.ctx, id, check)
		if err != nil {
			return "", err
		}
		return noDiff(check, *updated, playwrightServerFields)
	})
	r.op("PLAYWRIGHT: DeletePlaywrightCheck", func() (string, error) { return "", r.sdk.DeletePlaywrightCheck(r.ctx, id) })
}
