module github.com/xo/terminfo

go 1.19
