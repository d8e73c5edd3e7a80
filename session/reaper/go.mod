module 0linesman/reaper

go 1.26.8
