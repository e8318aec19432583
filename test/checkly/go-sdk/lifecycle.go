package main

import (
	"fmt"

	"github.com/google/go-cmp/cmp"
)

// crud is one SDK resource family's methods, keyed by a string id (numeric ids are formatted).
type crud[T any] struct {
	create func(T) (*T, error)
	get    func(id string) (*T, error)
	update func(id string, v T) (*T, error)
	del    func(id string) error
	id     func(*T) string
	// list is the list route and the id's field there; "" when Vigil has no list for the family.
	list, listField string
}

// lifecycle runs create, get, update, get, a second identical update (Terraform's second apply),
// list and delete, comparing each write and read with what was sent.
func lifecycle[T any](r *run, label string, m crud[T], sent T, change func(*T), opts cmp.Options) {
	var id string
	if !r.op(label+": create", func() (string, error) {
		created, err := m.create(sent)
		if err != nil {
			return "", err
		}
		id = m.id(created)
		return noDiff(sent, *created, opts)
	}) {
		return
	}
	read := func(name string) {
		r.op(label+": "+name, func() (string, error) {
			got, err := m.get(id)
			if err != nil {
				return "", err
			}
			return noDiff(sent, *got, opts)
		})
	}
	write := func(name string) {
		r.op(label+": "+name, func() (string, error) {
			updated, err := m.update(id, sent)
			if err != nil {
				return "", err
			}
			return noDiff(sent, *updated, opts)
		})
	}
	read("get")
	if m.update != nil {
		change(&sent)
		write("update")
		read("get after update")
		write("update again (second apply)")
	}
	if m.list != "" {
		r.op(label+": list", func() (string, error) { return r.list(m.list, m.listField, id) })
	}
	r.op(label+": delete", func() (string, error) { return "", m.del(id) })
	r.op(label+": get after delete is an error", func() (string, error) {
		if _, err := m.get(id); err == nil {
			return "", fmt.Errorf("the deleted resource still reads back")
		} else {
			return err.Error(), nil
		}
	})
}
