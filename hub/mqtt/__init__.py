"""MQTT: the bridge of a table, the embedded broker, Home Assistant discovery."""
