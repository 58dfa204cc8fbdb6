module polite

go 1.26.8
