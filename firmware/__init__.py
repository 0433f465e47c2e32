"""Firmware: what runs on the Pi — GPIO devices, frame sources and the watch loop."""
