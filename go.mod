module github.com/serq/serq

go 1.26.8

require (
	github.com/alecthomas/kong v1.17.0
	github.com/alecthomas/participle/v2 v2.1.4
	github.com/google/go-cmp v0.7.0
	github.com/mattn/go-isatty v0.0.24
)

require golang.org/x/sys v0.28.0 // indirect
