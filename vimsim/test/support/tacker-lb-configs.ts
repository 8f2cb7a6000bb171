/**
 * The files Tacker's install_k8s_cluster.sh writes on HA masters
 * (modify_haproxy_conf, modify_keepalived_conf), as the simulator's
 * load-balancing tests feed them to its haproxy and keepalived.
 */

/** What Tacker's modify_haproxy_conf writes, its MASTER_IPS being `backends`. */
export function tackerHaproxyCfg(backends: string[], frontPort = 16443, apiPort = 6443): string {
  return `global
        log /dev/log    local0
        log /dev/log    local1 notice
        chroot /var/lib/haproxy
        stats socket /run/haproxy/admin.sock mode 660 level admin expose-fd listeners
        stats timeout 30s
        user haproxy
        group haproxy
        daemon

        # Default SSL material locations
        ca-base /etc/ssl/certs
        crt-base /etc/ssl/private

        ssl-default-bind-ciphers ECDH+AESGCM:DH+AESGCM:ECDH+AES256:DH+AES256:ECDH+AES128:DH+AES:RSA+AESGCM:RSA+AES:!aNULL:!MD5:!DSS
        ssl-default-bind-options no-sslv3

defaults
        log     global
        mode    http
        option  httplog
        option  dontlognull
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

frontend kubernetes-apiserver
    mode                 tcp
    bind                 *:${frontPort}
    option               tcplog
    default_backend      kubernetes-apiserver

backend kubernetes-apiserver
    mode        tcp
    balance     roundrobin
${backends.map((ip) => `    server  master${ip.split('.')[3]}  ${ip}:${apiPort} check\n`).join('')}listen stats
    bind               *:1080
    stats auth         admin:awesomePassword
    stats refresh      5s
    stats realm        HAProxy\\ Statistics
    stats uri          /admin?stats
`;
}

/** What Tacker's modify_keepalived_conf writes for the master at `index`. */
export function tackerKeepalivedConf(index: number, vip: string): string {
  return `vrrp_script chk_haproxy {
    script "killall -0 haproxy"
    interval 3 fall 3
}
vrrp_instance VRRP1 {
    state MASTER
    interface ens3
    virtual_router_id 51
    priority ${103 - index}
    advert_int 1
    virtual_ipaddress {
         ${vip}/24
    }
    track_script {
        chk_haproxy
    }
}
`;
}
