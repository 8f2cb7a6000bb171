"""Octavia provider driver `vimsim`: load balancers run as TCP proxies in the
VIM simulator (vimsim/octavia), no amphora VM, no RabbitMQ, no driver agent.
Registered as the entry point octavia.api.drivers:vimsim by install.ts."""
