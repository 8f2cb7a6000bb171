/**
 * Ubuntu 20.04's haproxy and keepalived packages: their files, units and
 * what their postinst does. haproxy's ships a default haproxy.cfg (global and
 * defaults, no frontend) and its postinst enables and starts the unit, so it
 * runs at once and listens nowhere. keepalived's ships no keepalived.conf and
 * a unit with ConditionFileNotEmpty on it: the postinst enables and "starts"
 * it, systemd skips the start, and `systemctl is-active keepalived` says
 * inactive until a config is written and the unit started.
 */
import type { SimHost } from './host';
import { startService, stopService } from './services';

export const LB_VERSIONS: Record<string, string> = {
  haproxy: '2.0.33-0ubuntu0.1',
  keepalived: '1:2.0.19-2ubuntu0.2',
};

const ROOT = { name: 'root', uid: 0, home: '/root' };

const HAPROXY_DEFAULT_CFG = `global
	log /dev/log	local0
	log /dev/log	local1 notice
	chroot /var/lib/haproxy
	stats socket /run/haproxy/admin.sock mode 660 level admin expose-fd listeners
	stats timeout 30s
	user haproxy
	group haproxy
	daemon

	# Default SSL material locations
	ca-base /etc/ssl/certs
	crt-base /etc/ssl/private

	# See: https://ssl-config.mozilla.org/#server=haproxy&server-version=2.0.3&config=intermediate
        ssl-default-bind-ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384
        ssl-default-bind-ciphersuites TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256
        ssl-default-bind-options ssl-min-ver TLSv1.2 no-tls-tickets

defaults
	log	global
	mode	http
	option	httplog
	option	dontlognull
        timeout connect 5000
        timeout client  50000
        timeout server  50000
	errorfile 400 /etc/haproxy/errors/400.http
	errorfile 403 /etc/haproxy/errors/403.http
	errorfile 408 /etc/haproxy/errors/408.http
	errorfile 500 /etc/haproxy/errors/500.http
	errorfile 502 /etc/haproxy/errors/502.http
	errorfile 503 /etc/haproxy/errors/503.http
	errorfile 504 /etc/haproxy/errors/504.http
`;

const HAPROXY_UNIT = `[Unit]
Description=HAProxy Load Balancer
Documentation=man:haproxy(1)
Documentation=file:/usr/share/doc/haproxy/configuration.txt.gz
After=network-online.target rsyslog.service
Wants=network-online.target

[Service]
EnvironmentFile=-/etc/default/haproxy
EnvironmentFile=-/etc/sysconfig/haproxy
Environment="CONFIG=/etc/haproxy/haproxy.cfg" "PIDFILE=/run/haproxy.pid" "EXTRAOPTS=-S /run/haproxy-master.sock"
ExecStartPre=/usr/sbin/haproxy -f $CONFIG -c -q $EXTRAOPTS
ExecStart=/usr/sbin/haproxy -Ws -f $CONFIG -p $PIDFILE $EXTRAOPTS
ExecReload=/usr/sbin/haproxy -f $CONFIG -c -q $EXTRAOPTS
ExecReload=/bin/kill -USR2 $MAINPID
KillMode=mixed
Restart=always
SuccessExitStatus=143
Type=notify

[Install]
WantedBy=multi-user.target
`;

const KEEPALIVED_UNIT = `[Unit]
Description=Keepalive Daemon (LVS and VRRP)
After=network-online.target
Wants=network-online.target
# Only start if there is a configuration file
ConditionFileNotEmpty=/etc/keepalived/keepalived.conf

[Service]
Type=forking
KillMode=process
# Read configuration variable file if it is present
EnvironmentFile=-/etc/default/keepalived
ExecStart=/usr/sbin/keepalived $DAEMON_ARGS
ExecReload=/bin/kill -HUP $MAINPID

[Install]
WantedBy=multi-user.target
`;

const ERRORS: Record<string, string> = {
  400: 'Bad request', 403: 'Forbidden', 408: 'Request Time-out', 500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Time-out',
};

export function installLbPackage(host: SimHost, name: string): void {
  const fs = host.fs;
  const dir = (p: string, mode = 0o755) => fs.mkdir(p, ROOT, { parents: true, origin: 'package', mode });
  const file = (p: string, text: string, mode = 0o644) => {
    dir(p.slice(0, p.lastIndexOf('/')));
    fs.writeFile(p, text, ROOT, { origin: 'package', mode });
  };
  if (name === 'haproxy') {
    // dpkg keeps a config the admin changed (Tacker passes --force-confold)
    if (!fs.isFile('/etc/haproxy/haproxy.cfg')) file('/etc/haproxy/haproxy.cfg', HAPROXY_DEFAULT_CFG);
    for (const [code, text] of Object.entries(ERRORS)) {
      file(`/etc/haproxy/errors/${code}.http`, `HTTP/1.0 ${code} ${text}\r\nCache-Control: no-cache\r\nConnection: close\r\nContent-Type: text/html\r\n\r\n<html><body><h1>${code} ${text}</h1>\n</body></html>\n\n`);
    }
    file('/etc/default/haproxy', '# Defaults file for HAProxy\n#\n# This is sourced by both, the initscript and the systemd unit file, so do not\n# treat it as a shell script fragment.\n\n# Change the config file location if needed\n#CONFIG="/etc/haproxy/haproxy.cfg"\n\n# Add extra flags here, see haproxy(1) for a few options\n#EXTRAOPTS="-de -m 16"\n');
    file('/lib/systemd/system/haproxy.service', HAPROXY_UNIT);
    dir('/var/lib/haproxy');
    dir('/run/haproxy', 0o2775);
    host.services.set('haproxy', { active: false, enabled: true, failed: false });
    startService(host, 'haproxy');
  } else if (name === 'keepalived') {
    dir('/etc/keepalived');
    file('/etc/default/keepalived', '# Options to pass to keepalived\n\n# DAEMON_ARGS are appended to the keepalived command-line\nDAEMON_ARGS=""\n');
    file('/lib/systemd/system/keepalived.service', KEEPALIVED_UNIT);
    host.services.set('keepalived', { active: false, enabled: true, failed: false });
    startService(host, 'keepalived');
  }
}

export function removeLbPackage(host: SimHost, name: string): void {
  if (name !== 'haproxy' && name !== 'keepalived') return;
  stopService(host, name);
  host.services.delete(name);
}
