"""One package per game the table serves. Each is pure rules: state + action -> events."""
