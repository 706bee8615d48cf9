"""The dashboard's monitoring page over 1,000 nodes x 8 GPUs in a real browser: how soon it shows its
content, and what each open page costs the server.

The monitoring page promises that a 1,000-node type costs the browser one page of rows and the server
one shared snapshot per refresh interval however many pages are open (`nufi.ui.pages.monitoring`).
This benchmark checks what a person sees and what the server pays, in one run, against its own world:
a Prometheus scraping every 15 s, the mock exporter in its DCGM profile simulating 1,000 nodes with
8 GPUs each, a dev cluster with the same nodes and a few hundred pods holding GPUs, and the dev
identity provider with the sandbox's realm (its `nufi-dashboard` client). NuFi is the app
`nufi serve` runs (`nufi.cli.build_server`: the API with the dashboard mounted), served by uvicorn on
127.0.0.1 in a process of its own (`bench.dashboard_server`, started and stopped by PID);
Debian's Chromium, headless and driven by Playwright, is the browser. It prints:

1. Time to content: signed in once (through the identity provider's login form), then `--runs`
   times `/?type=nvidia-gpu` in a fresh page of the signed-in browser context, from `page.goto` to
   the devices table holding its first rows and the devices card showing 8000 (Playwright's
   `expect(...).to_contain_text`): median and max (goal <= 1 s), with the time `page.goto` itself
   took (the HTML and its load event) and, for reference, to the chart visible (each page is
   closed once its chart is there). For reference, in the same run: the plain API call `GET
   /api/v1/monitoring/nvidia-gpu?limit=25` (bearer token), the API call for the data of the page's
   chart (`.../range?metric=utilization&by=node`, the last hour per node), and the HTML's size.
2. Server memory per open page: VmRSS of the server process alone (anonymous and file-backed, from
   /proc; the Playwright client and Chromium run apart), glibc malloc's bytes in use and free, Python's
   allocated blocks (`sys.getallocatedblocks`, after a
   collection), and the NiceGUI clients and elements alive, before opening pages (once the pages of
   part 1 are gone), then `--rounds` times: after opening 20 monitoring pages (each a browser page kept
   open, updating live), after holding them for `--hold-seconds`, and after closing them all, once
   NiceGUI has deleted their clients (after its reconnect timeout) and their elements are gone (a
   deleted page's timers let go of it when their last sleep ends; at most 120 s is waited). It prints
   the growth per open page, what is left after the first round, and what the later rounds added to
   that: elements or Python blocks left behind would be objects still referenced. RSS is also shown
   after `malloc_trim(0)` (from a trimmed start), which has glibc return the free memory it keeps:
   what stays after that is memory in use outside Python's objects.

It never fails on time. Run:
`.venv/bin/python -m bench.dashboard_page [--runs N] [--hold-seconds N] [--rounds N]
[--server-env NAME=VALUE ...]` (defaults 7, 300 and 2; e.g. `--server-env MALLOC_ARENA_MAX=2`);
startup takes under a minute, a run with `--hold-seconds 60` about eight.
"""
