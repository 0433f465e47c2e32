# shellcheck shell=bash
# Sourced by install-pi.sh: configure the Pi's mosquitto as the table's broker, secure by default.
#
# configure_broker: users for the hub, the firmware, a controller and read-only readers (Home
# Assistant, dashboards), random passwords made once and kept 0600 in $DATA/broker-users.json
# (owned by the user running the services), the ACL of hub/mqtt/access.py, anonymous clients
# refused, a packet size limit. Uses install-pi.sh's run/step helpers and its SUDO, VENV, DATA,
# RUN_USER variables.
BROKER_USERS_FILE="${DATA:-/var/lib/camel-pyramid}/broker-users.json"

configure_broker() {
    local passwd=/etc/mosquitto/camel-pyramid.passwd acl=/etc/mosquitto/camel-pyramid.acl
    step "MQTT broker: users, passwords ($BROKER_USERS_FILE, 0600) and ACL; no anonymous clients"
    run "${SUDO[@]}" mkdir -p "$DATA"
    run "${SUDO[@]}" "$VENV/bin/pyramid" broker-config --users "$BROKER_USERS_FILE" \
        --owner "$RUN_USER" --passwd "$passwd" --acl "$acl" \
        --conf /etc/mosquitto/conf.d/camel-pyramid.conf
    run "${SUDO[@]}" chgrp mosquitto "$passwd" "$acl"
    run "${SUDO[@]}" systemctl restart mosquitto
}
