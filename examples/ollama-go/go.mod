module ollama-go-example

go 1.19
