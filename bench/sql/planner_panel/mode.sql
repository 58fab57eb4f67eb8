-- simjoin.enable_customscan for :mode (custom: on, native: off), then the query's setup.
SELECT set_config('simjoin.enable_customscan', CASE :'mode' WHEN 'custom' THEN 'on' ELSE 'off' END,
                  false) AS enable_customscan \gset
\if :has_setup
:setup
\endif
