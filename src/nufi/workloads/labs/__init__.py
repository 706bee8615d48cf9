"""Labs: Jupyter and VS Code servers a project's members open through NuFi's lab proxy."""
