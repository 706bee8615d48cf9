"""Alerts for any registered accelerator: Prometheus alerting rules made from each device type,
written where Prometheus reads them (a PrometheusRule, or a rules file and a reload), evaluated by
Prometheus and delivered by Alertmanager; and the alerts firing now, for the faces."""
