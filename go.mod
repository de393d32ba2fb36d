module github.com/phobos-tensor/phobos

go 1.26
