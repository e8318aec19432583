module vigil.test/checkly-go-sdk-driver

go 1.21

require (
	github.com/checkly/checkly-go-sdk v1.22.0
	github.com/google/go-cmp v0.7.0
)
