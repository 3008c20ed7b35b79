"""What serves both services at once, above them: neither service imports it."""
