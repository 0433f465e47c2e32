"""Vision: frames in, readings out. Pure functions over numpy images; no GPIO, MQTT, game state."""
