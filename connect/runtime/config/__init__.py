"""Configuration: the worker's settings (`worker_config`), the framework's connector settings
(`connector`), config providers and their placeholders (`providers`), and the Java `.properties` reader.
"""
