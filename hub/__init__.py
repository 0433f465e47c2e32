"""The hub: rules engines, odds, the event log, MQTT and the dashboard."""
