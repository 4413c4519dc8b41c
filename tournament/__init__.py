"""Tournaments across many tables: each table's referee publishes its rulings to an MQTT broker
(`publisher`), a dashboard subscribes and keeps the standings (`standings`, `dashboard`), and
`spit-referee tournament init` writes the broker's secured configuration (`brokerconf`)."""
