// Command minclient is the baseline of BenchmarkOneShotSend: the least a
// client does for one tools/list — the go-sdk's client starts the server,
// makes the handshake, lists the tools, closes stdin and waits for the
// server's exit — with no judging and no report.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	ctx := context.Background()
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	client := mcp.NewClient(&mcp.Implementation{Name: "minclient", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(len(res.Tools), "tools")
	if err := cs.Close(); err != nil { // closes stdin, waits for the exit
		fmt.Fprintln(os.Stderr, err)
	}
}
