"""What the dashboard's pages are built from but are not pages: the door (`gate`), the workload
forms, the device list's actions, the charts, and the one place errors are told (`errors`)."""
