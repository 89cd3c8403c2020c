from ligretto_vision.cli import main

raise SystemExit(main())
